if [ "$mode" = s55m ]; then
  # the match path with one error branch and overlapping matches stepped (bench_deflate_m) against 916c9f6 (bench_deflate_a); its test first, both platforms
  repo=$(cd "$here/../.." && pwd)
  zstd -q -d -f $here/test_deflate_gpu.zst -o /tmp/test_deflate_gpu_m; chmod +x /tmp/test_deflate_gpu_m
  echo "=== test_deflate_gpu $(date -u +%T)"; (cd $repo && timeout 200 /tmp/test_deflate_gpu_m --log_level=test_suite > $OUT/test_deflate_gpu.log 2>&1); echo "rc=$?"
  grep -a -E "No errors|failure|error:" $OUT/test_deflate_gpu.log | tail -4
  export VYRE_DEVICE=nvidia
  for r in 1 2; do
    for b in bench_deflate_a bench_deflate_m; do
      echo "=== corpus round $r $b"; $b $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
    done
  done
  echo "=== end $(date -u +%T)"
fi
if [ "$mode" = s55n ]; then
  # nvCOMP's Deflate and bench_deflate_m in one call, logs under $OUT as they come
  export VYRE_DEVICE=nvidia
  echo "=== bench_deflate_m"; bench_deflate_m $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | tee $OUT/ours.log | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
  unset VYRE_DEVICE
  echo "=== bench_nvcomp"; bench_nvcomp $c --mib 1024 --runs 3 --cases deflate --deflate-blocks 65536,1048576 --deflate-compressors libdeflate 2>&1 | tee $OUT/nvcomp.log | grep -av "^@result"
  echo "=== end $(date -u +%T)"
fi
