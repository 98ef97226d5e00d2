# A9: concat along axis 1 of tensors whose axis 0 differs: the message
# says which axis and both sizes.
# expect: 9:5: error: concat: 
# expect: 9:5: error: axis 0
# expect: 9:5: error: 3 ('a' f32[3, 4]
model m
input a : f32[3, 4]
input b : f32[5, 4]
y = concat([a, b], axis=1)
output y
