/* The floor under reading a log: counts the line ends of a file the way trtlens reaches its
 * bytes (mapped, each 4 KiB asked for a page ahead, pages dropped every 8 MiB behind the
 * reading, the file cut in halves for two threads), and does nothing else. What trtlens spends
 * above this is its parsing and analysis; tools/bench/run prints both.
 *
 * usage: floor FILE [THREADS]   (prints the line count) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { kAhead = 4096, kLine = 64, kRelease = 8 << 20 };

struct part {
  const unsigned char *begin, *end;
  unsigned long lines;
};

static void *count(void *arg) {
  struct part *p = arg;
  const unsigned char *q = p->begin, *released = p->begin;
  unsigned long lines = 0;
  while (q < p->end) {
    if (p->end - q >= kLine) {
      if (p->end - q > kAhead) __builtin_prefetch(q + kAhead);
      unsigned char in_line = 0; /* a fixed trip count the compiler turns into vector compares */
      for (int k = 0; k < kLine; ++k) in_line += q[k] == '\n';
      lines += in_line;
      q += kLine;
    } else {
      lines += *q++ == '\n';
    }
    if (q - released >= kRelease) {
      /* whole pages only: the neighbouring part's first page is not ours to drop */
      const unsigned char *from =
          (const unsigned char *)(((unsigned long)released + 4095) & ~4095UL);
      const unsigned char *to = (const unsigned char *)((unsigned long)q & ~4095UL);
      if (to > from) madvise((void *)from, (size_t)(to - from), MADV_DONTNEED);
      released = q;
    }
  }
  p->lines = lines;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: floor FILE [THREADS]\n");
    return 2;
  }
  int threads = argc > 2 ? atoi(argv[2]) : 1;
  if (threads < 1 || threads > 64) threads = 1;
  const int fd = open(argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
    perror(argv[1]);
    return 2;
  }
  const size_t size = (size_t)st.st_size;
  const unsigned char *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (data == MAP_FAILED) {
    perror("mmap");
    return 2;
  }
  madvise((void *)data, size, MADV_SEQUENTIAL);
  struct part parts[64];
  pthread_t ids[64];
  for (int i = 0; i < threads; ++i) {
    parts[i].begin = data + size / threads * i;
    parts[i].end = i + 1 == threads ? data + size : data + size / threads * (i + 1);
    if (pthread_create(&ids[i], NULL, count, &parts[i]) != 0) {
      perror("pthread_create");
      return 2;
    }
  }
  unsigned long lines = 0;
  for (int i = 0; i < threads; ++i) {
    pthread_join(ids[i], NULL);
    lines += parts[i].lines;
  }
  printf("%lu\n", lines);
  return 0;
}
