"""What the numbers mean: the verdict on eager against compiled, which side of the roofline a kernel sits, and how
far a busy machine's numbers can be trusted."""
