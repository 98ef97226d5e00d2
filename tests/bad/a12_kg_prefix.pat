# A12: the kg_ prefix is kgen's own.
# expect: 6:1: error: 'kg_tmp': names starting with
# expect: 6:1: error: 'kg_'
model m
input x : f32[4]
kg_tmp = exp(x)
output kg_tmp
