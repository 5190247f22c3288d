/* Forks a child that computes and exits normally (running its atexit handlers) while the parent
 * waits: only the parent may report. Also runs a shell command (fork + exec). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  pid_t pid = fork();
  if (pid == 0) {
    volatile double x = 0;
    for (int i = 0; i < 1000000; i++) x += i;
    exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (system("true") != 0) return 1;
  printf("forker: child exited with %d\n", WEXITSTATUS(st));
  return 0;
}
