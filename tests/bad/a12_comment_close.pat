# A12: '*/' where a name belongs.
# expect: 4:7: error: expected a name, found '*'
model m
input */ : f32[4]
