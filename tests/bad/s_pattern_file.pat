# A pattern file is not a model.
# expect: 3:9: error: this is a pattern file; kgen plan takes a model
pattern p
template gemm
dim N
dtype DT
input x : DT[N]
y = exp(x)
output y
