/* The engine's native core: move generation, make/unmake, captures, results, evaluation and
 * the search of companion/engine (position.py, evaluate.py, search.py) in C, for speed.
 *
 * A plain C library (no Python headers) loaded with ctypes by companion/engine/native.py.
 * It mirrors the pure-Python engine exactly: the same rules (everything rules/core.py does
 * except the chain, Linnaean and sheltered-king captures, for which the Python engine is used),
 * the same evaluation terms and weights, the same search (iterative deepening, PVS, TT, killers,
 * history, null move, LMR, frontier pruning, the tafl quiescence) and the same Zobrist keys;
 * tests/test_engine_native.py compares them move by move.
 *
 * Squares are rank * n + file (a1 == 0); a move is from << 9 | to. Scores are hundredths of a
 * soldier for the side to move; a win in k plies is WIN - k.
 *
 * One translation unit (so the compiler inlines across the parts): tafl.h (types and settings),
 * network.c (the learned network), rules.c (position and rules), evaluate.c, search.c (below
 * the root), root.c (iterative deepening), and here the functions native.py calls.
 */
#include "tafl.h"
#include "network.c"
#include "rules.c"
#include "evaluate.c"
#include "search.c"
#include "root.c"

#ifndef TAFL_SOURCE_HASH
#define TAFL_SOURCE_HASH "unknown"
#endif
int tafl_abi(void) { return ABI_VERSION; }
/* the hash of this file the library was built from (setup.py and native.py pass it) */
const char *tafl_source_hash(void) { return TAFL_SOURCE_HASH; }

/* ---------------------------------------------------------------- the API ----------------- */
Engine *tafl_new(const int32_t *cfg, int ncfg, const int32_t *sqdata, int count,
                 const uint64_t *zob, int tt_bits) {
    if (ncfg != C_NFIELDS || count > MAXSQ || tt_bits < 10 || tt_bits > 28) return NULL;
    Engine *e = calloc(1, sizeof(Engine));
    if (!e) return NULL;
    memcpy(e->cfg, cfg, sizeof(int) * C_NFIELDS);
    e->n = cfg[C_N];
    e->count = count;
    e->throne = cfg[C_THRONE];
    if (e->n * e->n != count) { free(e); return NULL; }
    for (int s = 0; s < count; s++) {
        const int32_t *row = sqdata + s * F_NFIELDS;
        e->mover[0][s] = (uint8_t)row[F_SOLDIER];
        e->mover[1][s] = (uint8_t)row[F_KING_OPEN];
        e->mover[2][s] = (uint8_t)row[F_KING_CLOSED];
        e->escape[s] = (uint8_t)row[F_ESCAPE];
        e->corner[s] = (uint8_t)row[F_CORNER];
        e->edge[s] = (uint8_t)row[F_EDGE];
        e->inward[s] = row[F_INWARD];
        e->distance[s] = row[F_DISTANCE];
        e->guard[s] = (uint8_t)row[F_GUARD];
        e->trap[s] = (uint8_t)row[F_TRAP];
        e->king_pass[s] = (uint8_t)row[F_KING_PASS];
        e->king_stop[s] = (uint8_t)row[F_KING_STOP];
        e->king_stop_closed[s] = (uint8_t)row[F_KING_STOP_CLOSED];
        e->pst_att[s] = row[F_PST_ATT];
        e->pst_dfn[s] = row[F_PST_DFN];
        e->pst_king[s] = row[F_PST_KING];
        int f = s % e->n, r = s / e->n;
        e->nbr[s][0] = f + 1 < e->n ? s + 1 : -1;      /* east */
        e->nbr[s][1] = f > 0 ? s - 1 : -1;              /* west */
        e->nbr[s][2] = r + 1 < e->n ? s + e->n : -1;   /* north */
        e->nbr[s][3] = r > 0 ? s - e->n : -1;           /* south */
    }
    /* zobrist: att[count], dfn[count], king[count + 1] (last: no king), side */
    for (int s = 0; s < count; s++) {
        e->z_att[s] = zob[s];
        e->z_dfn[s] = zob[count + s];
        e->z_king[s] = zob[2 * count + s];
    }
    e->z_king[MAXSQ] = zob[3 * count];
    for (int s = 0; s < count; s++)
        if (e->escape[s] && e->nescapes < 4 * MAXN) e->escapes[e->nescapes++] = s;
    e->z_side = zob[3 * count + 1];
    e->nw = (count + 63) / 64;
    for (int s = 0; s < count; s++) {
        uint64_t b = (uint64_t)1 << (s % 64);
        int f = s % e->n;
        e->bb_full.w[s / 64] |= b;
        if (f > 0) e->bb_not_first.w[s / 64] |= b;
        if (f < e->n - 1) e->bb_not_last.w[s / 64] |= b;
        if (e->edge[s]) e->bb_edge.w[s / 64] |= b;
        if (e->escape[s]) e->bb_escape.w[s / 64] |= b;
    }
    e->tt = calloc((size_t)1 << tt_bits, sizeof(TTEntry));
    e->tt_mask = ((uint64_t)1 << tt_bits) - 1;
    e->history = calloc((size_t)count << 9, sizeof(int32_t));
    e->ecache = calloc((size_t)1 << ECACHE_BITS, sizeof(EvalEntry));
    if (!e->tt || !e->history || !e->ecache) {
        free(e->tt); free(e->history); free(e->ecache); free(e); return NULL;
    }
    for (size_t i = 0; i <= e->tt_mask; i++) e->tt[i].move = -1;
    e->p.time_scale = 1.0;
    e->p.qdepth = 6;
    return e;
}

/* the corner zones: ZONE_BANDS * ZONE_SIZE weights, the two band limits, then per corner its
 * square, ZONE_SQUARES (square, class) pairs and its seals' 3 + 4 squares */
int tafl_set_zone(Engine *e, const int32_t *data, int n) {
    int need = ZONE_BANDS * ZONE_SIZE + 2 + 4 * (1 + 2 * ZONE_SQUARES + 7);
    if (n != need) return 0;
    const int32_t *p = data;
    for (int b = 0; b < ZONE_BANDS; b++)
        for (int i = 0; i < ZONE_SIZE; i++) e->zone_w[b][i] = *p++;
    e->zone_near = *p++;
    e->zone_mid = *p++;
    for (int k = 0; k < 4; k++) {
        e->zone_corner[k] = *p++;
        for (int i = 0; i < ZONE_SQUARES; i++) {
            e->zone_sq[k][i] = *p++;
            e->zone_cls[k][i] = *p++;
            if (e->zone_sq[k][i] < 0 || e->zone_sq[k][i] >= e->count) return 0;
            if (e->zone_cls[k][i] < 0 || e->zone_cls[k][i] >= ZONE_CLASSES) return 0;
        }
        for (int i = 0; i < 3; i++) e->zone_seal2[k][i] = *p++;
        for (int i = 0; i < 4; i++) e->zone_seal3[k][i] = *p++;
    }
    e->zone_on = 1;
    ecache_clear(e);
    return 1;
}

/* the learned network: hidden units h (1..NN_MAXH), then (3 * count + 1) * h input weights
 * (int8: attackers' squares, defenders', the king's, the attackers to move; unit by unit),
 * h hidden biases, h output weights and the output bias */
int tafl_set_network(Engine *e, const int32_t *data, int n) {
    if (n < 1) return 0;
    int h = data[0];
    if (h < 1 || h > NN_MAXH) return 0;
    int rows = 3 * e->count + 1;
    if (n != 1 + rows * h + 2 * h + 1) return 0;
    const int32_t *p = data + 1;
    for (int r = 0; r < rows; r++) {
        int16_t *w = r < 3 * e->count ? e->nn_w1[r / e->count][r % e->count] : e->nn_w1_side;
        for (int j = 0; j < h; j++) {
            int32_t v = *p++;
            if (v < -128 || v > 127) return 0;
            w[j] = (int16_t)v;
        }
    }
    for (int j = 0; j < h; j++) e->nn_b1[j] = *p++;
    for (int j = 0; j < h; j++) e->nn_w2[j] = *p++;
    e->nn_b2 = *p++;
    e->nn_h = h;
    e->nn_on = 1;
    network_refresh(e);
    ecache_clear(e);
    return 1;
}

void tafl_free(Engine *e) {
    if (!e) return;
    free(e->tt);
    free(e->history);
    free(e->ecache);
    free(e);
}

void tafl_new_game(Engine *e) {
    for (size_t i = 0; i <= e->tt_mask; i++) { e->tt[i].key = 0; e->tt[i].move = -1; }
    memset(e->history, 0, sizeof(int32_t) * ((size_t)e->count << 9));
}

/* board: one byte per square (0 empty, 1 attacker, 2 defender, 3 king); hist: the keys since
 * the last capture, the current position's last (as Position.hist) */
int tafl_set_position(Engine *e, const uint8_t *board, int side, int king_left,
                      const uint64_t *hist, int nhist, int winner, int reason) {
    memset(e->sq, 0, sizeof e->sq);
    e->pcount[0] = e->pcount[1] = 0;
    e->king = -1;
    uint64_t key = 0;
    for (int s = 0; s < e->count; s++) {
        int p = board[s];
        if (p == KINGP) { e->sq[s] = KINGP; e->king = s; key ^= e->z_king[s]; }
        else if (p == ATTP || p == DEFP) { put(e, s, p); key ^= p == ATTP ? e->z_att[s] : e->z_dfn[s]; }
    }
    if (e->king < 0) key ^= e->z_king[MAXSQ];
    if (side == DEF) key ^= e->z_side;
    e->side = side;
    e->king_left = king_left;
    e->key = key;
    e->result_winner = winner;
    e->result_reason = reason;
    if (e->king < 0 && !reason) { e->result_winner = ATT; e->result_reason = R_KING_CAPTURED; }
    e->hlen = 0;
    e->hstart = 0;
    if (nhist > 4096) { hist += nhist - 4096; nhist = 4096; }
    for (int i = 0; i < nhist; i++) e->hist[e->hlen++] = hist[i];
    if (!nhist) e->hist[e->hlen++] = key;
    e->ply_made = 0;
    network_refresh(e);
    return 1;
}

uint64_t tafl_key(const Engine *e) { return e->key; }
int tafl_moves(Engine *e, int32_t *out) { return gen_moves(e, out); }
int tafl_evaluate(const Engine *e) { return evaluate_full(e); }

/* make a move; captured squares go to caps (at most 32); returns their number */
int tafl_make(Engine *e, int move, int32_t *caps) {
    if (e->ply_made >= MAXUNDO - 1) return -1;
    int n = make(e, move);
    Undo *u = &e->undo[e->ply_made - 1];
    for (int i = 0; i < n; i++) caps[i] = u->caps[i];
    return n;
}

void tafl_unmake(Engine *e) { if (e->ply_made > 0) unmake(e); }

/* winner (-1: none or a draw) and reason (0: the game goes on) */
int tafl_result(const Engine *e, int32_t *winner) {
    *winner = e->result_winner;
    return e->result_reason;
}

int tafl_side(const Engine *e) { return e->side; }

/* the principal variation from the TT after `first` in the position set */
int tafl_pv(Engine *e, int first, int32_t *out) { return principal_variation(e, first, out); }
