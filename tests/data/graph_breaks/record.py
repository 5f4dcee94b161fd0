"""Records the graph-break messages that tests/unit/test_graph_break_reasons.py reads: `python record.py OUT.json`."""

import json
import logging
import sys

import torch
from torch import nn

messages = []


class Recorder(logging.Handler):
    def emit(self, record):
        if record.name.endswith("__graph_breaks"):
            messages.append(record.getMessage())


rnn = nn.GRU(32, 32, batch_first=True)


def gru(x):
    return rnn(x)[0]  # Dynamo does not trace RNN modules


def printing(x):
    y = x + 1
    print("between the graphs")  # a builtin Dynamo does not trace
    return y.relu()


def item(x):
    return x * x.sum().item()  # a scalar leaves the graph


torch._logging.set_logs(graph_breaks=True)
logging.getLogger("torch._dynamo").addHandler(Recorder())
for function in (gru, printing, item):
    torch._dynamo.reset()
    with torch.no_grad():
        torch.compile(function)(torch.randn(2, 4, 32))
with open(sys.argv[1], "w") as out:
    json.dump({"torch": torch.__version__, "messages": messages}, out, indent=1)
