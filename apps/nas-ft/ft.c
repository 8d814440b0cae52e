/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* NAS FT over MPI: the 3D FFT PDE kernel of the NAS Parallel Benchmarks,
 * written from its specification (NPB report RNR-94-007 and NPB 3.x's FT
 * description), the application of the SCC one-sided thesis (its 4.4.4).
 *
 * The problem: u0 = pseudo-random complex numbers from NPB's linear
 * congruential generator (x <- 5^13 x mod 2^46, seed 314159265, value
 * x / 2^46; element (i,j,k) takes numbers 2m+1 and 2m+2 of the stream,
 * m = i + nx (j + ny k), as real and imaginary part). Then U = FFT(u0)
 * (3D, unnormalised), and for t = 1..niter: W = U exp(-4 alpha pi^2
 * |kbar|^2 t) (alpha = 1e-6, kbar the signed frequency), w = inverse
 * FFT(W) (unnormalised), and the checksum sum_{j=1}^{1024} w(j mod nx,
 * 3j mod ny, 5j mod nz) / (nx ny nz), compared with NPB's published
 * reference checksums (relative error 1e-12; the values of NPB 3.x FT's
 * verify routine). The direction of the two transforms does not matter:
 * the evolution factor is even in kbar.
 *
 * Decomposition: P = p1 x p2 processes (p1 the largest power of two with
 * p1^2 <= P: 4 x 8 for 32), rank = r1 + p1 r2. Three layouts:
 *   A[z][y][x]: all x, y in the r1-th of p1 blocks, z in the r2-th of p2;
 *   B[z][x][y]: all y, x in the r1-th of p1 blocks, z as A;
 *   C[y][x][z]: all z, x as B, y in the r2-th of p2 blocks.
 * Forward: FFT x on A, transpose A->B among the p1 ranks of a row (same
 * r2), FFT y, transpose B->C among the p2 ranks of a column (same r1),
 * FFT z. Inverse: the same backwards (C->B, B->A). Each transpose goes
 * plane by plane (a z plane of A or B, a y plane of C): a plane is
 * transformed, its piece for each peer packed and sent at once (overlap
 * per plane), and each receiver unpacks after the exchange.
 *
 * Transports (the thesis's variants):
 *   two-sided     MPI_Irecv for every piece, MPI_Isend per piece, Waitall;
 *   pscw-mpbt-wt  MPI_Put per piece into the peer's receive window, in a
 *                 post/start/complete/wait epoch (the SCOSCo variant),
 *                 window memory MPBT-WT;
 *   pscw-dcm      the same on a DCM window: the synchronisation cannot
 *                 reach L2, so the receiver may read stale lines (the
 *                 thesis got wrong checksums for S and W this way);
 *   pscw-messages the same puts and epochs on a message-based window
 *                 (info scc_one_sided = messages): each put travels as a
 *                 message the target applies in its MPI_Win_wait, the
 *                 thesis's message-based one-sided variant (RCKMPI).
 *
 * Usage: ft CLASS VARIANT [keep-going], CLASS one of S (64x64x64, 6
 * iterations), W (128x128x32, 6 iterations), A (256x256x128, 6
 * iterations) or T (32x32x32, 6 iterations, a test size NPB has no
 * checksums for: verified against this program's serial run of the same
 * problem on rank 0). Rank 0 prints the checksums, the modelled
 * time (MPI_Wtime) of the slowest rank, the time summed over the ranks
 * split into computation, communication (MPI_Put, MPI_Isend, MPI_Irecv)
 * and synchronisation (the epoch calls, MPI_Waitall, the checksum's
 * reduction), MFLOPS by NPB's operation count, and VERIFIED or
 * UNSUCCESSFUL; the program exits 1 when unsuccessful, unless a third
 * argument `keep-going` is given (the benchmark suite's DCM runs, whose
 * wrong checksums are a result to report). Rank 0 also prints the same
 * figures as result lines of `cargo xtask bench` (experiment nas-ft, in
 * modelled core cycles): `part=total` (the slowest rank's time, with
 * NPB's operation count as ops, so the suite's rate is MFLOPS) and
 * `part=computation`, `communication`, `synchronisation` (summed over the
 * ranks), each with the class, variant, process count and whether the
 * checksums verified. NPB runs the
 * whole problem once untimed before the timed run; this program times
 * its only run, which starts at the initial conditions. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double re, im;
} cplx;

#define PI 3.141592653589793238
#define ALPHA 1.0e-6
#define SEED 314159265u
#define MULT 1220703125u /* 5^13 */
#define CHECKSUMS 1024

enum variant { TWO_SIDED, PSCW_MPBT_WT, PSCW_DCM, PSCW_MESSAGES };
static const char *const VARIANTS[] = {"two-sided", "pscw-mpbt-wt", "pscw-dcm", "pscw-messages"};
#define NVARIANTS (int)(sizeof VARIANTS / sizeof VARIANTS[0])

struct class_ {
    char name;
    int nx, ny, nz, niter;
    const double *ref; /* niter pairs (re, im), or NULL: a serial check */
};

/* NPB 3.x FT verify: the reference checksums of classes S, W and A. */
static const double REF_S[] = {
    5.546087004964e+02, 4.845363331978e+02, 5.546385409189e+02, 4.865304269511e+02,
    5.546148406171e+02, 4.883910722336e+02, 5.545423607415e+02, 4.901273169046e+02,
    5.544255039624e+02, 4.917475857993e+02, 5.542683411902e+02, 4.932597244941e+02,
};
static const double REF_W[] = {
    5.673612178944e+02, 5.293246849175e+02, 5.631436885271e+02, 5.282149986629e+02,
    5.594024089970e+02, 5.270996558037e+02, 5.560698047020e+02, 5.260027904925e+02,
    5.530898991250e+02, 5.249400845633e+02, 5.504159734538e+02, 5.239212247086e+02,
};
static const double REF_A[] = {
    5.046735008193e+02, 5.114047905510e+02, 5.059412319734e+02, 5.098809666433e+02,
    5.069376896287e+02, 5.098144042213e+02, 5.077892868474e+02, 5.101336130759e+02,
    5.085233095391e+02, 5.104914655194e+02, 5.091487099959e+02, 5.107917842803e+02,
};
static const struct class_ CLASSES[] = {
    {'S', 64, 64, 64, 6, REF_S},
    {'W', 128, 128, 32, 6, REF_W},
    {'A', 256, 256, 128, 6, REF_A},
    {'T', 32, 32, 32, 6, NULL},
};

/* ---- NPB's generator, in exact integer arithmetic mod 2^46 ---- */

#define MASK46 ((UINT64_C(1) << 46) - 1)
#define MASK23 ((UINT64_C(1) << 23) - 1)

/* a x mod 2^46, a and x below 2^46, by 23-bit halves (as NPB's randlc). */
static uint64_t mul46(uint64_t a, uint64_t x) {
    uint64_t a1 = a >> 23, a2 = a & MASK23, x1 = x >> 23, x2 = x & MASK23;
    uint64_t t = (a1 * x2 + a2 * x1) & MASK23;
    return ((t << 23) + a2 * x2) & MASK46;
}

/* a^n mod 2^46. */
static uint64_t pow46(uint64_t a, uint64_t n) {
    uint64_t r = 1;
    while (n) {
        if (n & 1) r = mul46(r, a);
        a = mul46(a, a);
        n >>= 1;
    }
    return r;
}

/* n complex numbers from the stream whose state is *x (vranlc of 2n). */
static void randoms(uint64_t *x, cplx *out, int n) {
    const double scale = 1.0 / (double)(UINT64_C(1) << 46);
    for (int i = 0; i < n; i++) {
        *x = mul46(MULT, *x);
        out[i].re = (double)*x * scale;
        *x = mul46(MULT, *x);
        out[i].im = (double)*x * scale;
    }
}

/* The x line at (y, z) of the initial condition into out. */
static void initial_line(const struct class_ *c, int y, int z, cplx *out) {
    uint64_t m = (uint64_t)c->nx * ((uint64_t)y + (uint64_t)c->ny * (uint64_t)z);
    uint64_t x = mul46(pow46(MULT, 2 * m), SEED);
    randoms(&x, out, c->nx);
}

/* ---- 1D FFT: iterative radix 2 on a contiguous line ---- */

struct roots {
    int n;
    cplx *w; /* exp(-2 pi i k / n), k < n/2 */
};

static void *alloc(size_t bytes, const char *what) {
    void *p = malloc(bytes);
    if (p == NULL) {
        printf("ft: no memory for %s (%u bytes)\n", what, (unsigned)bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void roots_init(struct roots *r, int n) {
    r->n = n;
    r->w = alloc(sizeof(cplx) * (size_t)(n / 2 > 0 ? n / 2 : 1), "FFT roots");
    for (int k = 0; k < n / 2; k++) {
        double t = -2.0 * PI * (double)k / (double)n;
        r->w[k].re = cos(t);
        r->w[k].im = sin(t);
    }
}

/* In place; dir +1 with the roots, -1 with their conjugates. */
static void fft_line(const struct roots *r, cplx *a, int dir) {
    int n = r->n;
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) {
            cplx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        int half = len / 2, step = n / len;
        for (int s = 0; s < n; s += len) {
            for (int k = 0; k < half; k++) {
                cplx w = r->w[k * step];
                if (dir < 0) w.im = -w.im;
                cplx *p = &a[s + k], *q = &a[s + k + half];
                double tr = q->re * w.re - q->im * w.im;
                double ti = q->re * w.im + q->im * w.re;
                q->re = p->re - tr;
                q->im = p->im - ti;
                p->re += tr;
                p->im += ti;
            }
        }
    }
}

/* ---- The distributed problem ---- */

static const struct class_ *cls;
static enum variant variant;
static int rank, nprocs, p1, p2, r1, r2;
static int nx, ny, nz, nx1, ny1, ny2, nz2; /* nx1 = nx/p1 ... */
static size_t local;                      /* complex numbers per rank */
static struct roots rx, ry, rz;
static cplx *u0, *w1, *w2, *sendbuf, *recvbuf;
static double *twiddle;
static MPI_Win win;
static MPI_Group row_group, col_group;
static int row_ranks[64], col_ranks[64];
static double t_comm, t_sync;

#define A_AT(a, z, y, x) (a)[((size_t)(z) * ny1 + (size_t)(y)) * nx + (size_t)(x)]
#define B_AT(b, z, x, y) (b)[((size_t)(z) * nx1 + (size_t)(x)) * ny + (size_t)(y)]
#define C_AT(c, y, x, z) (c)[((size_t)(y) * nx1 + (size_t)(x)) * nz + (size_t)(z)]

/* The four transposes. */
enum kind { A_TO_B, B_TO_C, C_TO_B, B_TO_A };

struct transpose {
    enum kind kind;
    int npeers, me;     /* in the row (A<->B) or column (B<->C) */
    const int *ranks;   /* world ranks of the row or column */
    MPI_Group group;    /* the same, less this rank */
    int nplanes, piece; /* planes per rank, complex numbers per piece */
};

static struct transpose transpose_of(enum kind k) {
    struct transpose t = {.kind = k};
    int row = k == A_TO_B || k == B_TO_A;
    t.npeers = row ? p1 : p2;
    t.me = row ? r1 : r2;
    t.ranks = row ? row_ranks : col_ranks;
    t.group = row ? row_group : col_group;
    switch (k) {
    case A_TO_B: t.nplanes = nz2; t.piece = nx1 * ny1; break;
    case B_TO_C: t.nplanes = nz2; t.piece = ny2 * nx1; break;
    case C_TO_B: t.nplanes = ny2; t.piece = nx1 * nz2; break;
    case B_TO_A: t.nplanes = nz2; t.piece = ny1 * nx1; break;
    }
    return t;
}

/* Where the piece of plane `plane` from group member `src` lies in the
 * receiver's buffer, in pieces. */
static int slot(const struct transpose *t, int src, int plane) {
    return t->kind == A_TO_B || t->kind == B_TO_A ? plane * t->npeers + src
                                                   : src * t->nplanes + plane;
}

/* Transforms plane `plane` of the source layout in place. */
static void compute_plane(const struct transpose *t, cplx *src, int plane, int dir) {
    switch (t->kind) {
    case A_TO_B:
        for (int y = 0; y < ny1; y++) fft_line(&rx, &A_AT(src, plane, y, 0), dir);
        break;
    case B_TO_C:
    case B_TO_A:
        for (int x = 0; x < nx1; x++) fft_line(&ry, &B_AT(src, plane, x, 0), dir);
        break;
    case C_TO_B:
        for (int x = 0; x < nx1; x++) fft_line(&rz, &C_AT(src, plane, x, 0), dir);
        break;
    }
}

/* Packs the piece of plane `plane` for group member d into out. */
static void pack(const struct transpose *t, const cplx *s, int plane, int d, cplx *out) {
    switch (t->kind) {
    case A_TO_B: /* out[x][y] = A[z][y][d nx1 + x] */
        for (int x = 0; x < nx1; x++)
            for (int y = 0; y < ny1; y++) *out++ = A_AT(s, plane, y, d * nx1 + x);
        break;
    case B_TO_C: /* out[y][x] = B[z][x][d ny2 + y] */
        for (int y = 0; y < ny2; y++)
            for (int x = 0; x < nx1; x++) *out++ = B_AT(s, plane, x, d * ny2 + y);
        break;
    case C_TO_B: /* out[x][z] = C[y][x][d nz2 + z] */
        for (int x = 0; x < nx1; x++)
            for (int z = 0; z < nz2; z++) *out++ = C_AT(s, plane, x, d * nz2 + z);
        break;
    case B_TO_A: /* out[y][x] = B[z][x][d ny1 + y] */
        for (int y = 0; y < ny1; y++)
            for (int x = 0; x < nx1; x++) *out++ = B_AT(s, plane, x, d * ny1 + y);
        break;
    }
}

/* Unpacks the piece of plane `plane` from group member src into dst. */
static void unpack(const struct transpose *t, const cplx *in, int src, int plane, cplx *dst) {
    switch (t->kind) {
    case A_TO_B: /* B[z][x][src ny1 + y] = in[x][y] */
        for (int x = 0; x < nx1; x++)
            for (int y = 0; y < ny1; y++) B_AT(dst, plane, x, src * ny1 + y) = *in++;
        break;
    case B_TO_C: /* C[y][x][src nz2 + z] = in[y][x] */
        for (int y = 0; y < ny2; y++)
            for (int x = 0; x < nx1; x++) C_AT(dst, y, x, src * nz2 + plane) = *in++;
        break;
    case C_TO_B: /* B[z][x][src ny2 + y] = in[x][z] */
        for (int x = 0; x < nx1; x++)
            for (int z = 0; z < nz2; z++) B_AT(dst, z, x, src * ny2 + plane) = *in++;
        break;
    case B_TO_A: /* A[z][y][src nx1 + x] = in[y][x] */
        for (int y = 0; y < ny1; y++)
            for (int x = 0; x < nx1; x++) A_AT(dst, plane, y, src * nx1 + x) = *in++;
        break;
    }
}

static void fail_mpi(int rc, const char *call) {
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        printf("ft: rank %d: %s failed: %s\n", rank, call, text);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Transforms src plane by plane (direction dir) and moves it to dst in the
 * next layout, with this run's transport. */
static void transpose(enum kind k, cplx *src, cplx *dst, int dir) {
    struct transpose t = transpose_of(k);
    int others = t.npeers - 1, nreq = 0;
    static MPI_Request reqs[4096];
    if (2 * others * t.nplanes > 4096) {
        printf("ft: %d requests in a transpose, more than 4096\n", 2 * others * t.nplanes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const cplx *recv = variant == TWO_SIDED ? recvbuf : NULL;
    double t0;
    if (variant == TWO_SIDED) {
        t0 = MPI_Wtime();
        for (int s = 0; s < t.npeers; s++) {
            if (s == t.me) continue;
            for (int p = 0; p < t.nplanes; p++) {
                fail_mpi(MPI_Irecv(recvbuf + (size_t)slot(&t, s, p) * t.piece, 2 * t.piece,
                                   MPI_DOUBLE, t.ranks[s], p, MPI_COMM_WORLD, &reqs[nreq++]),
                         "MPI_Irecv");
            }
        }
        t_comm += MPI_Wtime() - t0;
    } else if (others > 0) {
        t0 = MPI_Wtime();
        fail_mpi(MPI_Win_post(t.group, 0, win), "MPI_Win_post");
        fail_mpi(MPI_Win_start(t.group, 0, win), "MPI_Win_start");
        t_sync += MPI_Wtime() - t0;
    }
    for (int p = 0; p < t.nplanes; p++) {
        compute_plane(&t, src, p, dir);
        for (int i = 0; i < t.npeers; i++) {
            int d = (t.me + i) % t.npeers;
            cplx *out = sendbuf + ((size_t)p * t.npeers + d) * t.piece;
            pack(&t, src, p, d, out);
            if (d == t.me) continue;
            t0 = MPI_Wtime();
            if (variant == TWO_SIDED) {
                fail_mpi(MPI_Isend(out, 2 * t.piece, MPI_DOUBLE, t.ranks[d], p, MPI_COMM_WORLD,
                                   &reqs[nreq++]),
                         "MPI_Isend");
            } else {
                fail_mpi(MPI_Put(out, 2 * t.piece, MPI_DOUBLE, t.ranks[d],
                                 (MPI_Aint)slot(&t, t.me, p) * t.piece, 2 * t.piece, MPI_DOUBLE,
                                 win),
                         "MPI_Put");
            }
            t_comm += MPI_Wtime() - t0;
        }
    }
    t0 = MPI_Wtime();
    if (variant == TWO_SIDED) {
        fail_mpi(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
    } else if (others > 0) {
        fail_mpi(MPI_Win_complete(win), "MPI_Win_complete");
        fail_mpi(MPI_Win_wait(win), "MPI_Win_wait");
    }
    t_sync += MPI_Wtime() - t0;
    if (recv == NULL) recv = recvbuf; /* the window's memory */
    for (int s = 0; s < t.npeers; s++) {
        for (int p = 0; p < t.nplanes; p++) {
            const cplx *in = s == t.me ? sendbuf + ((size_t)p * t.npeers + s) * t.piece
                                       : recv + (size_t)slot(&t, s, p) * t.piece;
            unpack(&t, in, s, p, dst);
        }
    }
}

/* The signed frequency of index i of n. */
static int kbar(int i, int n) { return (i + n / 2) % n - n / 2; }

/* The evolution factors exp(-4 alpha pi^2 |kbar|^2), layout C. */
static void init_twiddle(void) {
    double ap = -4.0 * ALPHA * PI * PI;
    for (int y = 0; y < ny2; y++) {
        int ky = kbar(r2 * ny2 + y, ny);
        for (int x = 0; x < nx1; x++) {
            int kx = kbar(r1 * nx1 + x, nx);
            for (int z = 0; z < nz; z++) {
                int kz = kbar(z, nz);
                C_AT(twiddle, y, x, z) = exp(ap * (double)(kx * kx + ky * ky + kz * kz));
            }
        }
    }
}

/* The checksum of layout A's w, summed over the ranks. */
static cplx checksum(const cplx *a) {
    double part[2] = {0, 0}, sum[2];
    for (int j = 1; j <= CHECKSUMS; j++) {
        int x = j % nx, y = (3 * j) % ny, z = (5 * j) % nz;
        if (y / ny1 == r1 && z / nz2 == r2) {
            const cplx *v = &A_AT(a, z % nz2, y % ny1, x);
            part[0] += v->re;
            part[1] += v->im;
        }
    }
    double t0 = MPI_Wtime();
    fail_mpi(MPI_Allreduce(part, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    t_sync += MPI_Wtime() - t0;
    double n = (double)nx * (double)ny * (double)nz;
    return (cplx){sum[0] / n, sum[1] / n};
}

/* The whole problem on rank 0 alone, for a class without reference
 * checksums: niter checksums into out. */
static void serial_checksums(cplx *out) {
    size_t n = (size_t)nx * ny * nz;
    cplx *u = alloc(sizeof(cplx) * n, "the serial run"), *v = alloc(sizeof(cplx) * n, "the serial run");
    cplx *line = alloc(sizeof(cplx) * (size_t)(nx > ny ? (nx > nz ? nx : nz) : (ny > nz ? ny : nz)),
                       "a line");
#define U(a, z, y, x) (a)[((size_t)(z) * ny + (size_t)(y)) * nx + (size_t)(x)]
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++) initial_line(cls, y, z, &U(u, z, y, 0));
    double ap = -4.0 * ALPHA * PI * PI;
    for (int pass = -1; pass < cls->niter; pass++) {
        cplx *a = pass < 0 ? u : v;
        int dir = pass < 0 ? 1 : -1;
        if (pass >= 0) {
            for (int z = 0; z < nz; z++)
                for (int y = 0; y < ny; y++)
                    for (int x = 0; x < nx; x++) {
                        int kx = kbar(x, nx), ky = kbar(y, ny), kz = kbar(z, nz);
                        double f = exp(ap * (double)(kx * kx + ky * ky + kz * kz) * (pass + 1));
                        U(v, z, y, x).re = U(u, z, y, x).re * f;
                        U(v, z, y, x).im = U(u, z, y, x).im * f;
                    }
        }
        for (int z = 0; z < nz; z++)
            for (int y = 0; y < ny; y++) fft_line(&rx, &U(a, z, y, 0), dir);
        for (int z = 0; z < nz; z++)
            for (int x = 0; x < nx; x++) {
                for (int y = 0; y < ny; y++) line[y] = U(a, z, y, x);
                fft_line(&ry, line, dir);
                for (int y = 0; y < ny; y++) U(a, z, y, x) = line[y];
            }
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                for (int z = 0; z < nz; z++) line[z] = U(a, z, y, x);
                fft_line(&rz, line, dir);
                for (int z = 0; z < nz; z++) U(a, z, y, x) = line[z];
            }
        if (pass >= 0) {
            cplx s = {0, 0};
            for (int j = 1; j <= CHECKSUMS; j++) {
                const cplx *w = &U(v, (5 * j) % nz, (3 * j) % ny, j % nx);
                s.re += w->re;
                s.im += w->im;
            }
            out[pass] = (cplx){s.re / (double)n, s.im / (double)n};
        }
    }
#undef U
    free(line);
    free(v);
    free(u);
}

static void usage(const char *why) {
    if (rank == 0) {
        printf("ft: %s\nusage: ft CLASS VARIANT [keep-going], CLASS one of S, W, A, T; VARIANT one "
               "of two-sided, pscw-mpbt-wt, pscw-dcm, pscw-messages; keep-going: exit 0 even "
               "when the checksums are wrong\n",
               why);
    }
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    char why[160];
    if (argc != 3 && argc != 4) {
        snprintf(why, sizeof why, "%d arguments given, 2 or 3 needed", argc - 1);
        usage(why);
    }
    int keep_going = 0;
    if (argc == 4) {
        if (strcmp(argv[3], "keep-going") != 0) {
            snprintf(why, sizeof why, "unknown third argument %s (only keep-going)", argv[3]);
            usage(why);
        }
        keep_going = 1;
    }
    cls = NULL;
    for (size_t i = 0; i < sizeof CLASSES / sizeof CLASSES[0]; i++)
        if (argv[1][0] == CLASSES[i].name && argv[1][1] == '\0') cls = &CLASSES[i];
    if (cls == NULL) {
        snprintf(why, sizeof why, "unknown class %s", argv[1]);
        usage(why);
    }
    int found = 0;
    for (int v = 0; v < NVARIANTS; v++)
        if (strcmp(argv[2], VARIANTS[v]) == 0) {
            variant = (enum variant)v;
            found = 1;
        }
    if (!found) {
        snprintf(why, sizeof why, "unknown variant %s", argv[2]);
        usage(why);
    }
    nx = cls->nx;
    ny = cls->ny;
    nz = cls->nz;
    p1 = 1;
    while (4 * p1 * p1 <= nprocs) p1 *= 2;
    p2 = nprocs / p1;
    if (p1 * p2 != nprocs || (nprocs & (nprocs - 1)) != 0 || nx % p1 || ny % p1 || ny % p2 ||
        nz % p2 || p1 > 64 || p2 > 64) {
        snprintf(why, sizeof why,
                 "%d processes: a power of two whose %dx%d grid divides class %c's %dx%dx%d is needed",
                 nprocs, p1, p2, cls->name, nx, ny, nz);
        usage(why);
    }
    r1 = rank % p1;
    r2 = rank / p1;
    nx1 = nx / p1;
    ny1 = ny / p1;
    ny2 = ny / p2;
    nz2 = nz / p2;
    local = (size_t)nx * ny * nz / (size_t)nprocs;

    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int peers[64], n = 0;
    for (int i = 0; i < p1; i++) {
        row_ranks[i] = i + p1 * r2;
        if (i != r1) peers[n++] = row_ranks[i];
    }
    MPI_Group_incl(world, n, peers, &row_group);
    n = 0;
    for (int i = 0; i < p2; i++) {
        col_ranks[i] = r1 + p1 * i;
        if (i != r2) peers[n++] = col_ranks[i];
    }
    MPI_Group_incl(world, n, peers, &col_group);

    size_t bytes = sizeof(cplx) * local;
    u0 = alloc(bytes, "u0");
    w1 = alloc(bytes, "a work array");
    w2 = alloc(bytes, "a work array");
    sendbuf = alloc(bytes, "the send buffer");
    twiddle = alloc(sizeof(double) * local, "the evolution factors");
    if (variant == TWO_SIDED) {
        recvbuf = alloc(bytes, "the receive buffer");
    } else {
        MPI_Info info;
        MPI_Info_create(&info);
        if (variant == PSCW_MESSAGES)
            MPI_Info_set(info, "scc_one_sided", "messages");
        else
            MPI_Info_set(info, "scc_memory_type", variant == PSCW_DCM ? "dcm" : "mpbt-wt");
        MPI_Info_set(info, "no_locks", "true");
        fail_mpi(MPI_Win_allocate((MPI_Aint)bytes, (int)sizeof(cplx), info, MPI_COMM_WORLD,
                                  &recvbuf, &win),
                 "MPI_Win_allocate");
        MPI_Info_free(&info);
    }
    roots_init(&rx, nx);
    roots_init(&ry, ny);
    roots_init(&rz, nz);

    cplx expect[32];
    if (cls->ref == NULL && rank == 0) serial_checksums(expect);
    if (rank == 0) {
        printf("NAS FT class %c: %dx%dx%d, %d iterations, %d processes (%dx%d), %s\n", cls->name,
               nx, ny, nz, cls->niter, nprocs, p1, p2, VARIANTS[variant]);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    t_comm = t_sync = 0;
    double start = MPI_Wtime();
    init_twiddle();
    for (int z = 0; z < nz2; z++)
        for (int y = 0; y < ny1; y++) initial_line(cls, r1 * ny1 + y, r2 * nz2 + z, &A_AT(w1, z, y, 0));
    /* Forward: A (w1) -> B (w2) -> C (u0). */
    transpose(A_TO_B, w1, w2, 1);
    transpose(B_TO_C, w2, u0, 1);
    for (int y = 0; y < ny2; y++)
        for (int x = 0; x < nx1; x++) fft_line(&rz, &C_AT(u0, y, x, 0), 1);
    cplx sums[32];
    for (int it = 0; it < cls->niter; it++) {
        for (size_t i = 0; i < local; i++) {
            u0[i].re *= twiddle[i];
            u0[i].im *= twiddle[i];
            w1[i] = u0[i];
        }
        /* Inverse: C (w1) -> B (w2) -> A (w1). */
        transpose(C_TO_B, w1, w2, -1);
        transpose(B_TO_A, w2, w1, -1);
        for (int z = 0; z < nz2; z++)
            for (int y = 0; y < ny1; y++) fft_line(&rx, &A_AT(w1, z, y, 0), -1);
        sums[it] = checksum(w1);
    }
    double total = MPI_Wtime() - start;

    double mine[3] = {total - t_comm - t_sync, t_comm, t_sync}, summed[3], slowest;
    MPI_Reduce(mine, summed, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&total, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int ok = 1;
    if (rank == 0) {
        for (int it = 0; it < cls->niter; it++) {
            double re = cls->ref ? cls->ref[2 * it] : expect[it].re;
            double im = cls->ref ? cls->ref[2 * it + 1] : expect[it].im;
            double ere = fabs((sums[it].re - re) / re), eim = fabs((sums[it].im - im) / im);
            int good = ere <= 1.0e-12 && eim <= 1.0e-12;
            ok &= good;
            printf("T = %2d  checksum = %22.12e %22.12e  %s (relative error %.1e %.1e)\n", it + 1,
                   sums[it].re, sums[it].im, good ? "ok" : "WRONG", ere, eim);
        }
        /* NPB's count; ln(ntotal) exactly as log2(ntotal) ln 2 (ntotal a
         * power of two). */
        double ntotal = (double)nx * ny * nz;
        int log2n = 0;
        while ((double)(1u << log2n) < ntotal) log2n++;
        double ln = log2n * 0.69314718055994530942;
        double flops = ntotal * (14.8157 + 7.19641 * ln + (5.23518 + 7.21113 * ln) * cls->niter);
        printf("time: %.6f s modelled (the slowest rank)\n", slowest);
        printf("summed over %d ranks: computation %.6f s, communication %.6f s, "
               "synchronisation %.6f s\n",
               nprocs, summed[0], summed[1], summed[2]);
        printf("MFLOPS: %.2f\n", flops * 1.0e-6 / slowest);
        printf("%s: class %c, %s, %d processes\n", ok ? "VERIFIED" : "UNSUCCESSFUL", cls->name,
               VARIANTS[variant], nprocs);
        /* Result lines, in core cycles (MPI_Wtick is one). */
        static const char *const PARTS[] = {"total", "computation", "communication",
                                            "synchronisation"};
        double seconds[4] = {slowest, summed[0], summed[1], summed[2]};
        for (int i = 0; i < 4; i++) {
            printf("BENCH nas-ft class=%c variant=%s cores=%d verified=%s part=%s", cls->name,
                   VARIANTS[variant], nprocs, ok ? "yes" : "no", PARTS[i]);
            if (i == 0) printf(" ops=%.0f", flops);
            printf(" cycles=%.0f\n", seconds[i] / MPI_Wtick());
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (variant != TWO_SIDED) MPI_Win_free(&win);
    MPI_Finalize();
    return ok || keep_going ? 0 : 1;
}
