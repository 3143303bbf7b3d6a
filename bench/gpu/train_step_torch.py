"""PyTorch's own step of the layers train_step runs, on the same GPU in the same call: the reference
shakedown's tokens/s is put beside (docs/benchmarks.md, "Training step").

The same decoder layer as kernels/train/host_layers.hpp: RMSNorm (eps 1e-5, a gain), one fused QKV
projection without bias (grouped-query attention), causal attention through
torch.nn.functional.scaled_dot_product_attention (or explicit matmul + softmax with --attention
explicit), the output projection and the residual, RMSNorm, a fused gate|up projection, SiLU(gate) *
up, the down projection and the residual; bf16 parameters and activations; loss = sum(out * G) for a
fixed tensor G; forward + backward, no optimizer (shakedown's step has none either). With torchrun
(WORLD_SIZE > 1): DistributedDataParallel over NCCL, one process per GPU, 25 MiB buckets.

  python3 bench/gpu/train_step_torch.py [--model llama3_8b] [--layers 4] [--sequence 4096] [--steps 10]
"""
import argparse
import math
import os
import statistics

import torch
import torch.nn.functional as F

PRESETS = {"llama3_8b": (4096, 14336, 32, 8), "llama3_70b": (8192, 28672, 64, 8), "tiny": (256, 768, 4, 2)}


class Layer(torch.nn.Module):
    def __init__(self, hidden, ffn, heads, kv_heads, explicit):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim, self.explicit = heads, kv_heads, hidden // heads, explicit
        self.norm1 = torch.nn.RMSNorm(hidden, eps=1e-5)
        self.qkv = torch.nn.Linear(hidden, (heads + 2 * kv_heads) * self.head_dim, bias=False)
        self.out = torch.nn.Linear(heads * self.head_dim, hidden, bias=False)
        self.norm2 = torch.nn.RMSNorm(hidden, eps=1e-5)
        self.gate_up = torch.nn.Linear(hidden, 2 * ffn, bias=False)
        self.down = torch.nn.Linear(ffn, hidden, bias=False)

    def attention(self, q, k, v):
        if not self.explicit:
            return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        group = self.heads // self.kv_heads
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        s = scores.shape[-1]
        mask = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
        return torch.softmax(scores.masked_fill(mask, float("-inf")).float(), dim=-1).to(q.dtype) @ v

    def forward(self, x):
        b, s, _ = x.shape
        qkv = self.qkv(self.norm1(x))
        q, k, v = qkv.split([self.heads * self.head_dim, self.kv_heads * self.head_dim, self.kv_heads * self.head_dim], dim=-1)
        q = q.view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = v.view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        a = self.attention(q, k, v).transpose(1, 2).reshape(b, s, self.heads * self.head_dim)
        x = x + self.out(a)
        gate, up = self.gate_up(self.norm2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="llama3_8b", choices=sorted(PRESETS))
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--sequence", type=int, default=4096)
    parser.add_argument("--micro-batch", type=int, default=1)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--attention", default="sdpa", choices=["sdpa", "explicit"])
    args = parser.parse_args()

    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    if world > 1:
        torch.distributed.init_process_group("nccl")
    hidden, ffn, heads, kv_heads = PRESETS[args.model]
    torch.manual_seed(1)
    model = torch.nn.Sequential(*[Layer(hidden, ffn, heads, kv_heads, args.attention == "explicit")
                                  for _ in range(args.layers)]).cuda().to(torch.bfloat16)
    if world > 1:
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local], bucket_cap_mb=25)
    torch.manual_seed(100 + rank)
    x = torch.randn(args.micro_batch, args.sequence, hidden, device="cuda", dtype=torch.bfloat16)
    g = torch.randn_like(x)

    def step():
        model.zero_grad(set_to_none=False)
        (model(x) * g).sum().backward()

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(args.steps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    seconds = statistics.median(times)
    tokens = args.micro_batch * args.sequence
    params = hidden * (heads + 2 * kv_heads) * (hidden // heads) + hidden * hidden + 3 * hidden * ffn + 2 * hidden
    flop = 6.0 * params * args.layers * tokens + 12.0 * args.layers * hidden * args.sequence * tokens
    if rank == 0:
        print(f"torch train step: {args.model} x {args.layers} layers, sequence {args.sequence}, micro-batch "
              f"{args.micro_batch}, attention {args.attention}, {world} GPU(s): step {seconds:.4f} s (median of "
              f"{args.steps}), {tokens / seconds:.0f} tokens/s per GPU, {flop / seconds / 1e12:.1f} model TFLOP/s; "
              f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}", flush=True)
    if world > 1:
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
