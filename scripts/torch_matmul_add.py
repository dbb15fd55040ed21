"""matmul + bias add in PyTorch, the reference guide's example, for profiling
unmodified with cuprof on a GPU machine (bench/H100.md):

    ./prof.sh -n eager python3 scripts/torch_matmul_add.py eager 1024
    ./prof.sh -n addmm python3 scripts/torch_matmul_add.py addmm 1024
    ./prof.sh compare prof-out/eager.summary.json prof-out/addmm.summary.json

MODE: eager (torch.mm then +), addmm (torch.addmm), linear (F.linear).
Needs PyTorch with CUDA; not used by make test or make demo."""
import sys, time, torch
mode = sys.argv[1] if len(sys.argv) > 1 else "eager"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
dev = "cuda"
x = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
w = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
b = torch.randn(n, device=dev, dtype=torch.bfloat16)
def step():
    if mode == "eager":
        return torch.mm(x, w) + b
    if mode == "addmm":
        return torch.addmm(b, x, w)
    return torch.nn.functional.linear(x, w.t(), b)
for _ in range(3):
    y = step()
torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(20):
    y = step()
torch.cuda.synchronize()
ref = (x.float() @ w.float() + b.float())
err = ((y.float() - ref).norm() / ref.norm()).item()
print(f"torch {torch.__version__} mode={mode} n={n} {1e6*(time.perf_counter()-t0)/20:.1f} us/step rel_err={err:.2e}")
