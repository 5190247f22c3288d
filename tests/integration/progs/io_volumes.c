/* Writes and reads known volumes through every interposed family, with no MPI:
 *   write:  8 x 65536 B  = 524288     pwrite: 4 x 4096 B = 16384     fwrite: 10 x 1000 B = 10000
 *   fprintf: 100 lines of exactly 10 B = 1000                       total written = 551672 B
 *   read: 524288 B (8 x 65536)         pread: 4 x 4096 = 16384       fread: 10 x 1000 = 10000
 *   total read = 550672 B. Output to a pipe/terminal (stdout) is not file I/O and is not counted.
 * With a second directory (on another file system), also: open + 3 x write 8192 B + pread 8192 B +
 * close there: 6 calls, 24576 B written, 8192 B read.
 * Usage: io_volumes DIR [DIR2] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  char path[4096], path2[4096];
  snprintf(path, sizeof path, "%s/io_a.bin", dir);
  snprintf(path2, sizeof path2, "%s/io_b.txt", dir);
  static char buf[65536];
  memset(buf, 7, sizeof buf);
  int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
  if (fd < 0) {
    perror(path);
    return 1;
  }
  for (int i = 0; i < 8; i++)
    if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) return 1;
  for (int i = 0; i < 4; i++)
    if (pwrite(fd, buf, 4096, 4096 * i) != 4096) return 1;
  fsync(fd);
  lseek(fd, 0, SEEK_SET);
  for (int i = 0; i < 8; i++)
    if (read(fd, buf, sizeof buf) != (ssize_t)sizeof buf) return 1;
  for (int i = 0; i < 4; i++)
    if (pread(fd, buf, 4096, 4096 * i) != 4096) return 1;
  close(fd);
  FILE *f = fopen(path2, "w");
  if (!f) {
    perror(path2);
    return 1;
  }
  for (int i = 0; i < 10; i++) fwrite(buf, 1, 1000, f);
  for (int i = 0; i < 100; i++) fprintf(f, "line %04d\n", i);
  fclose(f);
  f = fopen(path2, "r");
  for (int i = 0; i < 10; i++)
    if (fread(buf, 1, 1000, f) != 1000) return 1;
  fclose(f);
  if (argc > 2) {
    char path3[4096];
    snprintf(path3, sizeof path3, "%s/io_c.bin", argv[2]);
    int fd3 = open(path3, O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd3 < 0) {
      perror(path3);
      return 1;
    }
    for (int i = 0; i < 3; i++)
      if (write(fd3, buf, 8192) != 8192) return 1;
    if (pread(fd3, buf, 8192, 0) != 8192) return 1;
    close(fd3);
    unlink(path3);
  }
  printf("io_volumes: done\n"); /* stdout: not file I/O */
  return 0;
}
