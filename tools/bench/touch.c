/* What fresh memory costs on this machine: maps MIB MiB (in 2 MiB pages where the kernel gives
 * them, as trtlens's allocator asks for on large inputs), writes one byte to each 4 KiB page and
 * prints the milliseconds that took. On a VM that hands freed memory back to its host (virtio
 * free page reporting) memory first touched after a few idle seconds costs many times what memory
 * another process freed a moment before does; tools/bench/run prints both.
 *
 * usage: touch MIB */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv) {
  const long mib = argc > 1 ? atol(argv[1]) : 0;
  if (mib <= 0 || mib > 4096) {
    fprintf(stderr, "usage: touch MIB (1-4096)\n");
    return 2;
  }
  const size_t huge = (size_t)2 << 20, size = (size_t)mib << 20;
  char *map = mmap(NULL, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) {
    perror("mmap");
    return 2;
  }
  char *p = (char *)(((uintptr_t)map + huge - 1) & ~(uintptr_t)(huge - 1));
  madvise(p, size, MADV_HUGEPAGE); /* a hint: where refused, 4 KiB pages are measured */
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (size_t i = 0; i < size; i += 4096) p[i] = 1;
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%.3f\n", (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
  return 0;
}
