t = x * 2

t + q
