"""torch_kvcache.py - reads of a paged KV cache, as a decode step's attention
makes them: each sequence's keys or values lie in 32 KiB blocks (16 tokens
x 8 heads x 64 fp32) scattered over a pool, found through its block
table.  Each step is one kernel, an embedding_bag sum over a batch's
blocks (one bag a sequence, one row a block: every block read whole, in
place, at a random place of the pool), after two reads of 256 MiB that
leave nothing of the set-up in L2:

  1  K blocks of 32 sequences x 32 blocks     32 MiB of the 128 MiB K pool
  2  V blocks of the same                     32 MiB of the V pool
  3  K again                                  after 64 MiB: the capacity edge
  4  V again
  5  K blocks of 8 sequences x 64 blocks      16 MiB of other K blocks
  6  the same again                           fits: read from L2
  7  V blocks of 32 sequences sharing a
     prefix of 16 blocks, 16 blocks each      16.5 MiB, the prefix read 32 times
  8  K blocks of 64 sequences x 24 blocks     48 MiB drawn over the whole pool

The block tables are random permutations of the pool (an allocator after
churn); the sequences of steps 1-4, 5-6 and 7 hold disjoint blocks.
l2trace captures only the steps (perkernel.sh: --kernel
EmbeddingBag_updateOutput), so the model starts from an empty L2.  With
L2SIM_UPTO=K the program stops the profiler after step K and ends (`ncu
--replay-mode app-range` then measures steps 1..K together); without it,
all eight steps run."""
import torch
import torch.nn.functional as F

import kernelsteps
import l2controls

MIB = 1 << 20
BLOCK = 16 * 8 * 64  # fp32 elements of a block: 32 KiB
NBLK = 128 * MIB // (BLOCK * 4)  # 4096 blocks a pool
torch.manual_seed(0)

kpool = torch.randn(NBLK, BLOCK, device="cuda")
vpool = torch.randn(NBLK, BLOCK, device="cuda")
perm_k = torch.randperm(NBLK, device="cuda")
perm_v = torch.randperm(NBLK, device="cuda")


def batch(ids, nseq):
    """The bags of nseq sequences of equal length over block ids."""
    ids = ids.contiguous()
    return ids, torch.arange(nseq, device="cuda") * (ids.numel() // nseq)


kv1 = batch(perm_k[:1024], 32)          # steps 1, 3
vv1 = batch(perm_v[:1024], 32)          # steps 2, 4
k5 = batch(perm_k[1024:1536], 8)        # steps 5, 6
prefix, own = perm_v[1024:1040], perm_v[1040:1552].view(32, 16)
v7 = batch(torch.cat([prefix.expand(32, 16), own], 1).flatten(), 32)  # step 7
k8 = batch(torch.randint(0, NBLK, (64 * 24,), device="cuda"), 64)     # step 8
junk = torch.ones(64 * MIB, device="cuda")  # 256 MiB


def bag(pool, b):
    return lambda: F.embedding_bag(b[0], pool, b[1], mode="sum")


steps = [bag(kpool, kv1), bag(vpool, vv1), bag(kpool, kv1), bag(vpool, vv1), bag(kpool, k5), bag(kpool, k5),
         bag(vpool, v7), bag(kpool, k8)]
for name, t in (("kpool", kpool), ("vpool", vpool)):
    print("%s 0x%x %d" % (name, t.data_ptr(), t.numel() * 4))
l2controls.apply({"kpool": (kpool.data_ptr(), kpool.numel() * 4), "vpool": (vpool.data_ptr(), vpool.numel() * 4)})
total = junk.sum() + junk.sum()  # stored data outlasts one read, not two (calibration/h200/README.md)
upto = kernelsteps.run(steps)
print("steps %d, %.1f" % (upto, total.item()))
