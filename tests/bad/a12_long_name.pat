# A12: a 65-character name (the limit is 64).
# expect: 4:7: error: identifier 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' is 65 characters long, limit 64
model m
input xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx : f32[4]
