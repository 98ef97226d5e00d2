# A model's dim needs a value.
# expect: 4:5: error: dim 'B' has no value; give one here (dim B = 64) or with --dim B=64
model m
dim B
