# A1: a BOM, then comments only.
# expect: 1:1: error: no model defined
# expect-errors: 1
