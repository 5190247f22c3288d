/* Shared by the CUBE tests: the golden profile, temporary directories, and an archive builder that
 * can also produce the broken layouts the checker must reject. */
#ifndef CUBE_FIXTURE_H
#define CUBE_FIXTURE_H
#include <stddef.h>
#include "pm_profile.h"

/* The golden profile (values derived by hand in cube_fixture.c and test_cube_writer.c):
 *   2 processes (rank 0 on host n0, rank 1 on n1) x 2 locations, listed interleaved in the profile
 *   (p0 main, p1 main, p0 "omp 1", p1 "omp 1") so CUBE's column order (by process) differs;
 *   call tree main{init{io}, solve{MPI_Send}} with cnode ids main 0, init 1, solve 2, io 3,
 *   MPI_Send 4, so the depth-first row order 0 1 3 2 4 differs from id order. */
pm_profile *cube_fixture_golden(void);
enum { FX_MAIN = 0, FX_INIT = 1, FX_SOLVE = 2, FX_IO = 3, FX_SEND = 4 };

char *cube_fixture_tmpdir(void);               /* malloc'd, created */
void cube_fixture_rmdir(char *dir);            /* removes its files, the directory, frees dir */
int cube_fixture_count_files(const char *dir); /* entries other than . and .. */
unsigned char *cube_fixture_read(const char *path, size_t *size);
int cube_fixture_save(const char *path, const void *data, size_t size);

/* An archive of these members in this order, ended by two zero blocks. std_padding 0: CubeLib's
 * layout (pm_tar); 1: standard tar padding (no extra block after an exact multiple of 512). */
typedef struct {
  const char *name;
  const void *data;
  size_t size;
} cube_member;
unsigned char *cube_fixture_archive(const cube_member *m, int n, int std_padding, size_t *size);

/* A valid one-metric anchor (the minimal file of docs/cube-format.md §7) and its data. */
extern const char cube_fixture_min_anchor[];
extern const unsigned char cube_fixture_min_index[18];
extern const unsigned char cube_fixture_min_data[18]; /* "CUBEX.DATA" + 42.5 */
#endif
