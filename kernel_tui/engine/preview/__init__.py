"""The CUDA preview: a GPU's kernels without a GPU, from Inductor's CUDA code generation on fake tensors
(``preview``), the GPU it believes in (``cuda_fakes``), and what it counts as launches.

It runs through the stages' pipeline (``stages.pipeline``) and counts with the measurement's own rules
(``counting``); it imports ``stages`` and below, never ``serve``.
"""
