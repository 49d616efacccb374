"""make_fp32.py OUT.onnx: the shipped int8 graph's weights back in fp32 (dequantise.py's mapping, read from the ONNX
graph), loaded into BertForQuestionAnswering and exported as an fp32 ONNX graph with the same inputs and outputs."""
import importlib.util, json, sys
import numpy as np, onnx, torch
from onnx import numpy_helper
from transformers import BertConfig, BertForQuestionAnswering

spec = importlib.util.spec_from_file_location("deq", "/work/main/records/build/sandbox/docs-cpu/dequantise.py")
deq = importlib.util.module_from_spec(spec); spec.loader.exec_module(deq)
m = onnx.load("/work/main/artifact/model.onnx")
inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
nodes = [(n.op_type, list(n.input), n.output[0]) for n in m.graph.node]
w = deq.dequantise(inits, nodes)
cfg = BertConfig.from_pretrained("/work/shared/models/all-MiniLM-L6-v2"); cfg.num_labels = 2
model = BertForQuestionAnswering(cfg).eval()
sd = model.state_dict()
missing = [k for k in sd if k not in w and "position_ids" not in k]
extra = [k for k in w if k not in sd]
print("missing", missing, "extra", extra)
state = {k: torch.from_numpy(np.ascontiguousarray(w[k])) for k in sd if k in w}
model.load_state_dict(state, strict=False)

class Wrap(torch.nn.Module):
    def __init__(s, m): super().__init__(); s.m = m
    def forward(s, input_ids, attention_mask, token_type_ids):
        o = s.m(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        return o.start_logits, o.end_logits

ids = torch.ones(2, 16, dtype=torch.int64)
torch.onnx.export(Wrap(model), (ids, ids, torch.zeros_like(ids)), sys.argv[1], input_names=["input_ids", "attention_mask", "token_type_ids"],
                  output_names=["start_logits", "end_logits"], dynamic_axes={n: {0: "b", 1: "t"} for n in
                  ["input_ids", "attention_mask", "token_type_ids", "start_logits", "end_logits"]}, opset_version=17, dynamo=False)
print("wrote", sys.argv[1])
