# A4/A12: valid UTF-8 that is not ASCII cannot be a name; the message shows
# the raw bytes escaped.
# expect: 5:7: error: unexpected non-ASCII character '\xC3\xA9'
model m
input é : f32[4]
