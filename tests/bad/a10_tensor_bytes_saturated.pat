# A10: 8 axes of 2147483647 f32 need 2^250 bytes: the count in the message
# must not saturate at 2^63 elements.
# expect: 6:7: error: needs 2^250 bytes
model m
dim N = 2147483647
input x : f32[N, N, N, N, N, N, N, N]
