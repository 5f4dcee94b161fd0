t = (a + b
t.relu()
