"""Same-run reference figures on the GPU host from PyTorch (which calls cuBLAS/cuBLASLt itself):
8192^3 GEMM at fp64, fp16, bf16 and fp8 e4m3 (torch._scaled_mm), median of 10 after 3 warm-ups.
Used to put shakedown's gemm_ladder beside a reference measured minutes apart on the same GPU."""
import torch

n = 8192
dev = torch.device("cuda:0")


def median_tflops(fn):
    for _ in range(3):
        fn()
    times = []
    for _ in range(10):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    times.sort()
    return 2 * n**3 / times[len(times) // 2] / 1e12


for name, dtype in [("fp64", torch.float64), ("fp16", torch.float16), ("bf16", torch.bfloat16)]:
    a = torch.randn(n, n, device=dev, dtype=dtype)
    b = torch.randn(n, n, device=dev, dtype=dtype)
    print(f"torch {name}: {median_tflops(lambda: a @ b):.1f} TFLOP/s")
try:
    a = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn)
    b = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0, device=dev)
    rate = median_tflops(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
    print(f"torch fp8 e4m3 (_scaled_mm, bf16 out): {rate:.1f} TFLOP/s")
except Exception as error:  # report, do not hide: this is the reference for the fp8 rung
    print(f"torch fp8 e4m3: failed: {error}")
