"""What ``torch.compile`` did, read while or after it compiles: graphs, breaks and recompiles (``compile_watch``),
the scheduler's fusion decisions and why kernels stayed apart (``fusion_watch``, ``boundaries``), the CUDA-graph
decision, recomputation in a training step's backward, and the code Inductor generated (``generated_code``,
``buffer_plan``), with the torch settings a compile must see.

It imports ``counting`` below it, never a stage.
"""
