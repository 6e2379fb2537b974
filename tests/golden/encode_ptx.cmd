encode interleaved evict_last 0.25 evict_first api=ptx
