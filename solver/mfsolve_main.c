/*
 * mfsolve_main.c — the mfsolve command: read or generate an SPD matrix, analyse, factor, solve,
 * and report per-phase times, flops, factor size, memory (predicted vs measured) and the residual.
 * Sequential for now (one process, no MPI/StarPU). Exit codes: 0 success, 1 the problem failed
 * (unreadable file, not SPD, ...), 2 bad command line.
 */
#include "mfs.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "mfsolve";

static void usage(FILE *out)
{
    mfs_options d;
    mfs_options_default(&d);
    fprintf(out,
            "Usage: %s (--matrix FILE.mtx | --gen SPEC) [options]\n"
            "Multifrontal sparse Cholesky: analysis, tiled factorization, solve, residual.\n"
            "\n"
            "Input (exactly one):\n"
            "  -m, --matrix FILE     Matrix Market file (coordinate, real/integer, general/symmetric, SPD)\n"
            "  -g, --gen SPEC        generated matrix: lap2d:N | lap3d:N | lap3d27:N\n"
            "                        (N may be NXxNY / NXxNYxNZ for rectangular grids)\n"
            "Options:\n"
            "  -o, --ordering NAME   fill-reducing ordering: metis, amd or natural (default %s)\n"
            "      --nb N            tile size of the fronts (default %d)\n"
            "      --amalg T         amalgamation: fraction of explicit zeros a merged front may hold\n"
            "                        (default %.2f; fronts of <= 48 columns merge more freely, as in\n"
            "                        CHOLMOD; 0 keeps the fundamental supernodes)\n"
            "      --refine N        at most N steps of iterative refinement (default 0)\n"
            "      --workers W       report the sequential-subtree grouping for W workers (default 1)\n"
            "      --ranks R         report the proportional mapping onto R MPI ranks (default 1)\n"
            "  -q, --quiet           no progress display (it is shown only on a terminal anyway)\n"
            "  -h, --help            this help\n"
            "\n"
            "Orderings built in:%s%s natural\n",
            prog, mfs_ordering_name(d.ordering), d.nb, d.amalg,
            mfs_ordering_available(MFS_ORDER_METIS) ? " metis" : "",
            mfs_ordering_available(MFS_ORDER_AMD) ? " amd" : "");
}

static int bad_arg(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
    return 2;
}

static int parse_long(const char *s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi) return 0;
    *v = x;
    return 1;
}

/* ---- progress on a terminal: one rewritten line, at most 5 updates a second */
typedef struct {
    int on;
    double last;
    const char *phase;
} progress_state;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void progress_phase(progress_state *p, const char *phase)
{
    if (!p->on) return;
    fflush(stdout); /* report lines first, then the progress line under them */
    p->phase = phase;
    fprintf(stderr, "\r\033[K%s: %s ...", prog, phase);
    fflush(stderr);
}

static void progress_cb(void *ctx, double done, double total)
{
    progress_state *p = ctx;
    double t = now();
    if (!p->on || (t - p->last < 0.2 && done < total)) return;
    p->last = t;
    fprintf(stderr, "\r\033[K%s: %s %5.1f %%", prog, p->phase, total > 0 ? 100.0 * done / total : 100.0);
    fflush(stderr);
}

static void progress_done(progress_state *p)
{
    if (!p->on) return;
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
}

static double mb(double bytes) { return bytes / 1e6; }

int main(int argc, char **argv)
{
    const char *matrix = NULL, *gen = NULL;
    mfs_options opt;
    mfs_options_default(&opt);
    long refine = 0, workers = 1, ranks = 1, v;
    int quiet = 0;
    enum { OPT_NB = 256, OPT_AMALG, OPT_REFINE, OPT_WORKERS, OPT_RANKS };
    static const struct option longopts[] = {
        {"matrix", required_argument, NULL, 'm'},    {"gen", required_argument, NULL, 'g'},
        {"ordering", required_argument, NULL, 'o'},  {"nb", required_argument, NULL, OPT_NB},
        {"amalg", required_argument, NULL, OPT_AMALG}, {"refine", required_argument, NULL, OPT_REFINE},
        {"workers", required_argument, NULL, OPT_WORKERS}, {"ranks", required_argument, NULL, OPT_RANKS},
        {"quiet", no_argument, NULL, 'q'},            {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    opterr = 0; /* our own messages, with the exit code 2 */
    int c;
    while ((c = getopt_long(argc, argv, ":m:g:o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (matrix || gen) return bad_arg("give exactly one of --matrix and --gen%s%s", "", "");
            matrix = optarg;
            break;
        case 'g':
            if (matrix || gen) return bad_arg("give exactly one of --matrix and --gen%s%s", "", "");
            gen = optarg;
            break;
        case 'o':
            if (strcmp(optarg, "metis") == 0)
                opt.ordering = MFS_ORDER_METIS;
            else if (strcmp(optarg, "amd") == 0)
                opt.ordering = MFS_ORDER_AMD;
            else if (strcmp(optarg, "natural") == 0)
                opt.ordering = MFS_ORDER_NATURAL;
            else
                return bad_arg("invalid ordering '%s'%s (expected metis, amd or natural)", optarg, "");
            if (!mfs_ordering_available(opt.ordering))
                return bad_arg("ordering '%s' is not built into this mfsolve%s", optarg, "");
            break;
        case OPT_NB:
            if (!parse_long(optarg, 1, 65536, &v))
                return bad_arg("invalid --nb '%s'%s (expected an integer in 1..65536)", optarg, "");
            opt.nb = (int)v;
            break;
        case OPT_AMALG: {
            char *end;
            errno = 0;
            double t = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(t >= 0 && t <= 1))
                return bad_arg("invalid --amalg '%s'%s (expected a fraction in [0, 1])", optarg, "");
            opt.amalg = t;
            break;
        }
        case OPT_REFINE:
            if (!parse_long(optarg, 0, 100, &refine))
                return bad_arg("invalid --refine '%s'%s (expected an integer in 0..100)", optarg, "");
            break;
        case OPT_WORKERS:
            if (!parse_long(optarg, 1, 4096, &workers))
                return bad_arg("invalid --workers '%s'%s (expected an integer in 1..4096)", optarg, "");
            break;
        case OPT_RANKS:
            if (!parse_long(optarg, 1, 1 << 20, &ranks))
                return bad_arg("invalid --ranks '%s'%s (expected an integer in 1..1048576)", optarg, "");
            break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case ':': return bad_arg("option '%s' needs an argument%s", argv[optind - 1], "");
        default:
            return bad_arg("unknown option '%s'%s", argv[optind - 1], "");
        }
    }
    if (optind < argc) return bad_arg("unexpected argument '%s'%s", argv[optind], "");
    if (!matrix && !gen) return bad_arg("no matrix: give --matrix FILE or --gen SPEC%s%s", "", "");

    progress_state prog_st = {!quiet && isatty(STDERR_FILENO), 0, ""};
    mfs_error err;
    mfs_matrix A;
    mfs_status st;
    progress_phase(&prog_st, "reading the matrix");
    if (gen) {
        st = mfs_matrix_generate(gen, &A, &err);
        if (st == MFS_ERR_ARG) {
            progress_done(&prog_st);
            return bad_arg("invalid --gen: %s%s", err.msg, "");
        }
    } else {
        st = mfs_matrix_read_mm(matrix, &A, &err);
    }
    progress_done(&prog_st);
    if (st != MFS_OK) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        return 1;
    }
    printf("matrix          %s: n = %d, nnz = %lld (lower triangle), %lld (full)\n", gen ? gen : matrix, A.n,
           (long long)A.nnz, (long long)(2 * A.nnz - A.n));

    /* ---- analysis */
    progress_phase(&prog_st, "analysis");
    mfs_symbolic *S;
    st = mfs_analyze(&A, &opt, &S, &err);
    progress_done(&prog_st);
    if (st != MFS_OK) {
        fprintf(stderr, "%s: analysis failed: %s\n", prog, err.msg);
        mfs_matrix_free(&A);
        return 1;
    }
    double t_an = S->time_order + S->time_symbolic;
    printf("analysis        %.3f s (ordering %s %.3f s, symbolic %.3f s)\n", t_an, mfs_ordering_name(opt.ordering),
           S->time_order, S->time_symbolic);
    int32_t big = 0;
    for (int32_t f = 1; f < S->nfronts; f++)
        if (S->fronts[f].nrow > S->fronts[big].nrow) big = f;
    printf("fronts          %d (%d fundamental supernodes, amalgamation %.3g), largest %d x %d with %d own columns, "
           "nb = %d, tiles %lld\n",
           S->nfronts, S->nsupernodes, opt.amalg, S->fronts[big].nrow, S->fronts[big].nrow, S->fronts[big].ncol,
           opt.nb, (long long)S->ntiles);
    printf("nnz(L)          %lld (stored %lld: %.1f %% explicit zeros from amalgamation)\n", (long long)S->nnz_l,
           (long long)S->nnz_l_stored, 100.0 * (double)(S->nnz_l_stored - S->nnz_l) / (double)S->nnz_l_stored);
    printf("flops           %.4g (exact factor %.4g; potrf %.3g, trsm %.3g, syrk %.3g, gemm %.3g), assembly %.3g adds\n",
           S->flops, S->flops_exact, S->flops_type[MFS_OP_POTRF], S->flops_type[MFS_OP_TRSM],
           S->flops_type[MFS_OP_SYRK], S->flops_type[MFS_OP_GEMM], S->flops_type[MFS_OP_ASSEMBLE]);
    printf("operations      %lld:", (long long)S->nops);
    for (int t = 0; t < MFS_NOPTYPES; t++)
        printf("%s %s %lld", t ? "," : "", mfs_op_name((mfs_optype)t), (long long)S->nops_type[t]);
    printf("\n");

    mfs_pruning P;
    if (mfs_prune(S, (int)workers, &P, &err) == MFS_OK) {
        printf("subtrees        %ld worker(s): layer of %d fronts, %d sequential subtrees holding %.1f %% of the "
               "flops, layer balance %.2f, threshold %.2g\n",
               workers, P.nlayer, P.nsubtrees, 100.0 * P.subtree_flops / S->flops, P.balance, P.threshold);
        mfs_pruning_free(&P);
    }
    int32_t *owner = malloc(((size_t)S->nfronts + 1) * sizeof *owner);
    double *load = malloc((size_t)ranks * sizeof *load);
    if (owner && load && mfs_map_proportional(S, (int)ranks, owner, NULL, NULL, load, &err) == MFS_OK) {
        double mx = 0, sum = 0;
        for (long r = 0; r < ranks; r++) {
            sum += load[r];
            if (load[r] > mx) mx = load[r];
        }
        printf("mapping         %ld rank(s), proportional: max/mean front flops per owner %.2f\n", ranks,
               sum > 0 ? mx / (sum / ranks) : 1.0);
    }
    free(owner);
    free(load);

    int64_t peak_before = mfs_mem_peak(); /* the factorization restarts the high-water mark */

    /* ---- factorization */
    progress_phase(&prog_st, "factorization");
    mfs_factor *F;
    st = mfs_factorize_seq(S, &A, &F, progress_cb, &prog_st, &err);
    progress_done(&prog_st);
    if (st != MFS_OK) {
        fprintf(stderr, "%s: factorization failed: %s\n", prog, err.msg);
        mfs_symbolic_free(S);
        mfs_matrix_free(&A);
        return 1;
    }
    printf("factorization   %.3f s, %.2f GFlop/s\n", F->time, S->flops / F->time * 1e-9);
    printf("memory          numeric phase: predicted peak %.1f MB (factor %.1f MB + CB region %.1f MB + tables "
           "%.1f MB; live data at most %.1f MB), measured peak %.1f MB (measured/predicted %.3f)\n",
           mb(S->mem_peak), mb(S->mem_factor), mb(S->mem_cb_region), mb(S->mem_fixed), mb(S->mem_peak_live),
           mb(F->mem_peak), (double)F->mem_peak / (double)S->mem_peak);

    /* ---- solve: b = A x* with a known x* */
    progress_phase(&prog_st, "solve");
    double *xs = malloc((size_t)A.n * sizeof *xs), *b = malloc((size_t)A.n * sizeof *b);
    double *x = malloc((size_t)A.n * sizeof *x), *res = malloc(((size_t)refine + 1) * sizeof *res);
    if (!xs || !b || !x || !res) {
        progress_done(&prog_st);
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    uint64_t seed = 88172645463325252ull;
    for (int32_t i = 0; i < A.n; i++) { /* xorshift: reproducible, not special like all ones */
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        xs[i] = (double)(seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    }
    mfs_matrix_symv(&A, xs, b);
    double t0 = now();
    int iters = 0;
    st = mfs_solve_refine(F, &A, b, x, (int)refine, res, &iters, &err);
    double t_solve = now() - t0;
    progress_done(&prog_st);
    if (st != MFS_OK) {
        fprintf(stderr, "%s: solve failed: %s\n", prog, err.msg);
        return 1;
    }
    double ferr = 0, xn = 0;
    for (int32_t i = 0; i < A.n; i++) {
        ferr = fmax(ferr, fabs(x[i] - xs[i]));
        xn = fmax(xn, fabs(xs[i]));
    }
    printf("solve           %.3f s (%d refinement step%s)\n", t_solve, iters, iters == 1 ? "" : "s");
    printf("residual        %.3e scaled ||Ax-b||inf/(||A||inf ||x||inf + ||b||inf)", res[iters]);
    if (iters > 0) printf(" (before refinement %.3e)", res[0]);
    printf("; forward error %.3e\n", xn > 0 ? ferr / xn : ferr);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    int64_t peak = mfs_mem_peak() > peak_before ? mfs_mem_peak() : peak_before;
    printf("process         tracked allocation peak %.1f MB over the run, max RSS %.1f MB\n", mb((double)peak),
           ru.ru_maxrss / 1e3);
    free(xs);
    free(b);
    free(x);
    free(res);
    mfs_factor_free(F);
    mfs_symbolic_free(S);
    mfs_matrix_free(&A);
    return 0;
}
