/* Types, limits and settings shared by the parts of the native core (see tafl.c). */
#ifndef TAFL_H
#define TAFL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ABI_VERSION 8
#define MAXSQ 361
#define MAXN 19
#define MAXPLY 160
#define MAXUNDO 1200
#define MAXMOVES 2048
#define KILLER_PLIES 128
#define WIN 100000
#define MATE_BOUND (WIN - 1000)
#define INF 1000000
#define ZONE_BANDS 3
#define ZONE_CLASSES 9
#define ZONE_SIZE (2 * ZONE_CLASSES + 1)
#define ZONE_SQUARES 15
/* the learned network (network.c): inputs per piece kind and square plus one for the side
 * to move; at most NN_MAXH hidden units */
#define NN_MAXH 64
#define NN_ONE 64 /* a hidden unit's activation 1.0 in the integer arithmetic */
#define EXACT 0
#define LOWER 1
#define UPPER 2

enum { EMPTY = 0, ATTP = 1, DEFP = 2, KINGP = 3 };
enum { ATT = 0, DEF = 1 };
/* mover flags per square */
enum { BLOCKED = 1, NO_STOP = 2, LAST = 4 };
/* per-square config fields (sq_data rows) */
enum {
    F_SOLDIER, F_KING_OPEN, F_KING_CLOSED, F_ESCAPE, F_CORNER, F_EDGE, F_INWARD, F_DISTANCE,
    F_GUARD, F_TRAP, F_KING_PASS, F_KING_STOP, F_KING_STOP_CLOSED, F_PST_ATT, F_PST_DFN,
    F_PST_KING, F_NFIELDS
};
/* scalar config */
enum {
    C_N, C_THRONE, C_CORNER_VS_DEF, C_CORNER_VS_ATT, C_CORNER_VS_KING, C_THRONE_VS_DEF,
    C_THRONE_VS_ATT, C_THRONE_VS_KING, C_KING_ARMED, C_KING_STRENGTH, C_SHIELDWALL,
    C_EXIT_FORT, C_ENCIRCLEMENT, C_REPETITION, C_NO_MOVES_LOSS, C_MAY_THRONE,
    C_FORT_OPEN_LEFT, C_FORT_OPEN_STAY,
    /* weights */
    W_ATTACKER, W_DEFENDER, W_KING_MOBILITY, W_KING_THREATS, W_KING_LINES, W_KING_DISTANCE,
    W_KING_ADJACENT, W_KING_GUARDS, W_CORNER_GUARD, W_CORNER_TRAP, W_EDGE, W_SEALED, W_TEMPO,
    W_OPEN_LINES, W_KING_CORNERS, W_DEF_EDGE, W_DEF_SPACE, W_SEALED_OFF, C_HAS_PST, C_NFIELDS
};

typedef struct {
    int att_n, dfn_n;
    int king, side, king_left, result_winner, result_reason;
    uint64_t key;
    int hstart;
    int ncap;
    int move;
    int caps[8 * 4];
} Undo;

/* a bitboard of up to 6 words (19 x 19 = 361 squares), square s is bit s % 64 of word s / 64 */
#define BBW 6
typedef struct { uint64_t w[BBW]; } BB;

typedef struct {
    uint64_t key;
    int32_t move;
    int32_t score;
    int16_t depth;
    uint8_t flag;
} TTEntry;

/* a static evaluation remembered (key 0: empty); see evaluate.c */
typedef struct {
    uint64_t key;
    int32_t score;
} EvalEntry;
#define ECACHE_BITS 16

typedef void (*info_fn)(int depth, int score, int64_t nodes, double seconds, const int32_t *pv,
                        int pvlen);
typedef int (*poll_fn)(void);

typedef struct {
    int depth, exact_all, multipv, null_move, lmr, lmp, futility, tt_cutoffs, qdepth;
    int clock_cpu; /* 0: monotonic clock, 1: process CPU time */
    int64_t nodes;
    double seconds, soft, time_scale;
    info_fn on_info;
    poll_fn poll;
} SearchParams;

typedef struct {
    int32_t best_move, best_score, depth, pvlen, nroot;
    int64_t nodes;
    double seconds;
    int32_t pv[64];
    int32_t root_moves[MAXMOVES];
    int32_t root_scores[MAXMOVES];
} SearchOut;

typedef struct {
    int n, count, throne;
    int cfg[C_NFIELDS];
    uint8_t mover[3][MAXSQ];
    uint8_t escape[MAXSQ], corner[MAXSQ], edge[MAXSQ], guard[MAXSQ], trap[MAXSQ];
    uint8_t king_pass[MAXSQ], king_stop[MAXSQ], king_stop_closed[MAXSQ];
    int escapes[4 * MAXN], nescapes;
    int inward[MAXSQ], distance[MAXSQ];
    int pst_att[MAXSQ], pst_dfn[MAXSQ], pst_king[MAXSQ];
    int nbr[MAXSQ][4]; /* neighbour per direction (E, W, N, S), -1 off board */
    int nw; /* words of the bitboards used */
    BB bb_full, bb_not_first, bb_not_last, bb_edge, bb_escape; /* flood fills' masks */
    /* the learned corner zones (evaluate.py Weights.zone; zone_on 0: none) */
    int zone_on, zone_near, zone_mid;
    int zone_w[ZONE_BANDS][ZONE_SIZE];
    int zone_corner[4], zone_sq[4][ZONE_SQUARES], zone_cls[4][ZONE_SQUARES];
    int zone_seal2[4][3], zone_seal3[4][4];
    int step[4];
    /* the learned network (nn_on 0: none): nn_w1[kind][square][unit], kind 0 attacker,
     * 1 defender, 2 king; nn_w1_side: the attackers to move */
    int nn_on, nn_h;
    int16_t nn_w1[3][MAXSQ][NN_MAXH];
    int16_t nn_w1_side[NN_MAXH];
    int32_t nn_b1[NN_MAXH], nn_w2[NN_MAXH], nn_b2;
    /* the hidden units' sums (side to move left out) after each ply made: nn_acc[ply_made] */
    int32_t nn_acc[MAXUNDO + 1][NN_MAXH];
    uint64_t z_att[MAXSQ], z_dfn[MAXSQ], z_king[MAXSQ + 1], z_side;
    /* position */
    uint8_t sq[MAXSQ];
    int plist[2][MAXSQ], pcount[2], pidx[MAXSQ];
    int king, side, king_left, result_winner, result_reason; /* reason 0: none */
    uint64_t key;
    uint64_t hist[4096 + MAXPLY];
    int hlen, hstart;
    Undo undo[MAXUNDO];
    int ply_made;
    /* search */
    TTEntry *tt;
    uint64_t tt_mask;
    int32_t *history;
    EvalEntry *ecache; /* 1 << ECACHE_BITS entries, emptied at every search */
    int32_t killers[KILLER_PLIES][2];
    int64_t nodes, node_limit;
    double start, deadline;
    int aborted;
    SearchParams p;
    int32_t movebuf[MAXPLY + 8][MAXMOVES];
} Engine;

/* result reasons (mirrors companion.rules.outcome.Termination values by name on the Python side) */
enum { R_NONE, R_KING_CAPTURED, R_ENCIRCLEMENT, R_ESCAPE, R_EXIT_FORT, R_REPETITION, R_NO_MOVES };

#endif
