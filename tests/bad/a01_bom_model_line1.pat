model m extra
input x : f32[4]
