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
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ABI_VERSION 4
#define MAXSQ 361
#define MAXN 19
#define MAXPLY 160
#define MAXUNDO 1200
#define MAXMOVES 2048
#define KILLER_PLIES 128
#define WIN 100000
#define MATE_BOUND (WIN - 1000)
#define INF 1000000
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
    W_OPEN_LINES, W_KING_CORNERS, W_DEF_EDGE, C_HAS_PST, C_NFIELDS
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

typedef struct {
    uint64_t key;
    int32_t move;
    int32_t score;
    int16_t depth;
    uint8_t flag;
} TTEntry;

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
    int step[4];
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
    int32_t killers[KILLER_PLIES][2];
    int64_t nodes, node_limit;
    double start, deadline;
    int aborted;
    SearchParams p;
    int32_t movebuf[MAXPLY + 8][MAXMOVES];
} Engine;

/* result reasons (mirrors companion.rules.outcome.Termination values by name on the Python side) */
enum { R_NONE, R_KING_CAPTURED, R_ENCIRCLEMENT, R_ESCAPE, R_EXIT_FORT, R_REPETITION, R_NO_MOVES };

#ifndef TAFL_SOURCE_HASH
#define TAFL_SOURCE_HASH "unknown"
#endif
int tafl_abi(void) { return ABI_VERSION; }
/* the hash of this file the library was built from (setup.py and native.py pass it) */
const char *tafl_source_hash(void) { return TAFL_SOURCE_HASH; }


/* ---------------------------------------------------------------- position ---------------- */
static void put(Engine *e, int s, int piece) {
    e->sq[s] = (uint8_t)piece;
    if (piece == ATTP || piece == DEFP) {
        int side = piece == ATTP ? ATT : DEF;
        e->pidx[s] = e->pcount[side];
        e->plist[side][e->pcount[side]++] = s;
    }
}

static void lift(Engine *e, int s) {
    int piece = e->sq[s];
    if (piece == ATTP || piece == DEFP) {
        int side = piece == ATTP ? ATT : DEF;
        int i = e->pidx[s], last = e->plist[side][--e->pcount[side]];
        e->plist[side][i] = last;
        e->pidx[last] = i;
    }
    e->sq[s] = EMPTY;
}

static void relocate(Engine *e, int frm, int to) {
    int piece = e->sq[frm];
    e->sq[to] = (uint8_t)piece;
    e->sq[frm] = EMPTY;
    if (piece == ATTP || piece == DEFP) {
        int side = piece == ATTP ? ATT : DEF;
        int i = e->pidx[frm];
        e->plist[side][i] = to;
        e->pidx[to] = i;
    }
}

static int king_lines_kind(const Engine *e) {
    return (e->cfg[C_MAY_THRONE] || !e->king_left) ? 1 : 2;
}

/* destinations of the piece on s for mover kind k (0 soldier, 1 king open, 2 king closed) */
static int destinations(const Engine *e, int s, int k, int32_t *out, int with_from) {
    int cnt = 0;
    const uint8_t *mv = e->mover[k];
    for (int d = 0; d < 4; d++) {
        int q = e->nbr[s][d];
        while (q >= 0) {
            if (e->sq[q] != EMPTY || (mv[q] & BLOCKED)) break;
            if (!(mv[q] & NO_STOP)) out[cnt++] = with_from ? (s << 9 | q) : q;
            if (mv[q] & LAST) break;
            q = e->nbr[q][d];
        }
    }
    return cnt;
}

static int gen_moves(Engine *e, int32_t *out) {
    int cnt = 0;
    if (e->result_reason) return 0;
    int side = e->side, n = e->pcount[side];
    int order[MAXSQ];
    for (int i = 0; i < n; i++) { /* ascending squares, as the Python engine generates them */
        int s = e->plist[side][i], j = i - 1;
        while (j >= 0 && order[j] > s) { order[j + 1] = order[j]; j--; }
        order[j + 1] = s;
    }
    for (int i = 0; i < n; i++) cnt += destinations(e, order[i], 0, out + cnt, 1);
    if (side == DEF && e->king >= 0)
        cnt += destinations(e, e->king, king_lines_kind(e), out + cnt, 1);
    return cnt;
}

/* an empty square that acts as an enemy against victim (0 att, 1 def, 2 king) */
static int hostile_empty(const Engine *e, int s, int victim) {
    if (e->sq[s] != EMPTY) return 0;
    if (e->corner[s]) {
        int f = victim == 0 ? C_CORNER_VS_ATT : victim == 1 ? C_CORNER_VS_DEF : C_CORNER_VS_KING;
        if (e->cfg[f]) return 1;
    }
    if (s == e->throne) {
        int f = victim == 0 ? C_THRONE_VS_ATT : victim == 1 ? C_THRONE_VS_DEF : C_THRONE_VS_KING;
        if (e->cfg[f]) return 1;
    }
    return 0;
}

static int king_is_captured(const Engine *e, int king, int to) {
    int strength = e->cfg[C_KING_STRENGTH]; /* 0 strong, 1 strong_by_throne, 2 weak */
    if (strength == 1) {
        int near = king == e->throne;
        for (int d = 0; d < 4 && !near; d++)
            if (e->nbr[king][d] == e->throne && e->throne >= 0) near = 1;
        strength = near ? 0 : 2;
    }
    if (strength == 2) {
        int n = e->n;
        int bf = 2 * (king % n) - to % n, br = 2 * (king / n) - to / n;
        if (!(0 <= bf && bf < n && 0 <= br && br < n)) return 0;
        int b = br * n + bf;
        return e->sq[b] == ATTP || hostile_empty(e, b, 2);
    }
    if (e->edge[king]) return 0;
    for (int d = 0; d < 4; d++) {
        int a = e->nbr[king][d];
        if (!(e->sq[a] == ATTP || hostile_empty(e, a, 2))) return 0;
    }
    return 1;
}

static int is_row_side(const Engine *e, int s, int attackers_moved) {
    int p = e->sq[s];
    return attackers_moved ? (p == DEFP || p == KINGP) : p == ATTP;
}

static int shieldwall(const Engine *e, int to, int attackers_moved, int *caps) {
    int cnt = 0;
    for (int d = 0; d < 4; d++) {
        int s = e->nbr[to][d];
        if (s < 0 || !e->edge[s]) continue;
        int row[MAXSQ], len = 0, closed = 0;
        while (s >= 0) {
            if (is_row_side(e, s, attackers_moved)) {
                row[len++] = s;
            } else {
                int p = e->sq[s];
                if (attackers_moved) closed = p == ATTP;
                else closed = p == DEFP || (p == KINGP && e->cfg[C_KING_ARMED]);
                if (e->cfg[C_SHIELDWALL] == 2 && e->corner[s]) closed = 1;
                break;
            }
            s = e->nbr[s][d];
        }
        if (!closed || len < 2) continue;
        int all = 1;
        for (int i = 0; i < len && all; i++) {
            int w = e->inward[row[i]];
            int p = w >= 0 ? e->sq[w] : -1;
            all = w >= 0 && (attackers_moved ? p == ATTP : (p == DEFP || p == KINGP));
        }
        if (all)
            for (int i = 0; i < len; i++)
                if (row[i] != e->king) caps[cnt++] = row[i];
    }
    return cnt;
}

/* captured squares (the king's included) by the piece that just arrived on to */
static int compute_captures(const Engine *e, int to, int attackers_moved, int *caps) {
    int cnt = 0;
    if (attackers_moved) {
        for (int d = 0; d < 4; d++) {
            int n1 = e->nbr[to][d];
            if (n1 < 0 || e->sq[n1] != DEFP) continue;
            int n2 = e->nbr[n1][d];
            if (n2 >= 0 && (e->sq[n2] == ATTP || hostile_empty(e, n2, 1))) caps[cnt++] = n1;
        }
    } else {
        if (to == e->king && !e->cfg[C_KING_ARMED]) return 0;
        for (int d = 0; d < 4; d++) {
            int n1 = e->nbr[to][d];
            if (n1 < 0 || e->sq[n1] != ATTP) continue;
            int n2 = e->nbr[n1][d];
            if (n2 < 0) continue;
            int p = e->sq[n2];
            if (p == DEFP || (p == KINGP && e->cfg[C_KING_ARMED]) || hostile_empty(e, n2, 0))
                caps[cnt++] = n1;
        }
    }
    if (e->cfg[C_SHIELDWALL] && e->edge[to]) {
        int more[MAXSQ];
        int m = shieldwall(e, to, attackers_moved, more);
        for (int i = 0; i < m; i++) {
            int dup = 0;
            for (int j = 0; j < cnt; j++) dup |= caps[j] == more[i];
            if (!dup && cnt < 32) caps[cnt++] = more[i];
        }
    }
    if (attackers_moved && e->king >= 0) {
        for (int d = 0; d < 4; d++)
            if (e->nbr[to][d] == e->king) {
                if (king_is_captured(e, e->king, to)) caps[cnt++] = e->king;
                break;
            }
    }
    return cnt;
}

static int encircled(const Engine *e) {
    static __thread int stack[MAXSQ];
    uint8_t seen[MAXSQ];
    memset(seen, 0, (size_t)e->count);
    int top = 0;
    for (int i = 0; i < e->pcount[DEF]; i++) {
        int s = e->plist[DEF][i];
        if (e->edge[s]) return 0;
        seen[s] = 1;
        stack[top++] = s;
    }
    if (e->king >= 0) {
        if (e->edge[e->king]) return 0;
        seen[e->king] = 1;
        stack[top++] = e->king;
    }
    while (top) {
        int s = stack[--top];
        for (int d = 0; d < 4; d++) {
            int a = e->nbr[s][d];
            if (a < 0 || seen[a] || e->sq[a] == ATTP) continue;
            if (e->edge[a]) return 0;
            seen[a] = 1;
            stack[top++] = a;
        }
    }
    return 1;
}

/* the exit fort (rules/core.py exit_fort and _fort_wall_breakable) */
static int fort_wall_breakable(const Engine *e, const uint8_t *region, const uint8_t *safe,
                               int d) {
    int run[MAXSQ], len = 1;
    run[0] = d;
    for (int dir = 0; dir < 4; dir++) {
        int s = e->nbr[d][dir];
        if (s < 0 || !e->edge[s]) continue;
        int end = -1;
        while (s >= 0) {
            if (e->sq[s] == DEFP) run[len++] = s;
            else { end = s; break; }
            s = e->nbr[s][dir];
        }
        if (end == -1 || region[end]) return 0;
        if (e->corner[end] && e->cfg[C_SHIELDWALL] != 2) return 0;
    }
    if (len < 2) return 0;
    for (int i = 0; i < len; i++) {
        int w = e->inward[run[i]];
        if (w >= 0 && (region[w] || safe[w])) return 0;
    }
    return 1;
}

static int exit_fort(const Engine *e) {
    int king = e->king;
    if (king < 0 || !e->edge[king]) return 0;
    uint8_t region[MAXSQ], safe[MAXSQ];
    memset(region, 0, (size_t)e->count);
    int stack[MAXSQ], top = 0;
    region[king] = 1;
    stack[top++] = king;
    while (top) {
        int s = stack[--top];
        for (int d = 0; d < 4; d++) {
            int a = e->nbr[s][d];
            if (a >= 0 && !region[a] && e->sq[a] == EMPTY) {
                region[a] = 1;
                stack[top++] = a;
            }
        }
    }
    for (int s = 0; s < e->count; s++) {
        if (!region[s]) continue;
        if (e->corner[s]) return 0;
        for (int d = 0; d < 4; d++) {
            int a = e->nbr[s][d];
            if (a >= 0 && !region[a] && e->sq[a] != DEFP) return 0;
        }
    }
    int open = e->king_left ? e->cfg[C_FORT_OPEN_LEFT] : e->cfg[C_FORT_OPEN_STAY];
    int32_t tmp[128];
    if (!destinations(e, king, open ? 1 : 2, tmp, 0)) return 0;
    int throne_hostile = e->throne >= 0 && e->cfg[C_THRONE_VS_DEF] ? e->throne : -2;
    memset(safe, 0, (size_t)e->count);
    for (int i = 0; i < e->pcount[DEF]; i++) safe[e->plist[DEF][i]] = 1;
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int i = 0; i < e->pcount[DEF]; i++) {
            int d = e->plist[DEF][i];
            if (!safe[d]) continue;
            int ok = 1;
            for (int axis = 0; axis < 2 && ok; axis++) {
                int any = 0;
                for (int k = 0; k < 2; k++) {
                    int x = e->nbr[d][axis * 2 + k];
                    if (x == -1 || (region[x] && x != throne_hostile) || safe[x]) any = 1;
                }
                ok = any;
            }
            if (ok && e->cfg[C_SHIELDWALL] && e->edge[d])
                ok = !fort_wall_breakable(e, region, safe, d);
            if (!ok) {
                safe[d] = 0;
                changed = 1;
            }
        }
    }
    for (int s = 0; s < e->count; s++) {
        if (!region[s]) continue;
        for (int d = 0; d < 4; d++) {
            int a = e->nbr[s][d];
            if (a >= 0 && !region[a] && !safe[a]) return 0;
        }
    }
    return 1;
}

static int count_key(const Engine *e, uint64_t key) {
    int c = 0;
    for (int i = e->hstart; i < e->hlen; i++) c += e->hist[i] == key;
    return c;
}

static void push_hist(Engine *e, uint64_t key, int fresh) {
    if (e->hlen >= (int)(sizeof e->hist / sizeof e->hist[0])) { /* keep the tail */
        int keep = e->hlen - e->hstart;
        if (keep > 2048) keep = 2048;
        memmove(e->hist, e->hist + e->hlen - keep, sizeof(uint64_t) * (size_t)keep);
        e->hlen = keep;
        e->hstart = 0;
    }
    if (fresh) e->hstart = e->hlen;
    e->hist[e->hlen++] = key;
}

/* play a legal move; returns the number of pieces captured */
static int make(Engine *e, int move) {
    int frm = move >> 9, to = move & 511;
    Undo *u = &e->undo[e->ply_made++];
    u->king = e->king; u->side = e->side; u->king_left = e->king_left;
    u->result_winner = e->result_winner; u->result_reason = e->result_reason;
    u->key = e->key; u->hstart = e->hstart; u->move = move;
    uint64_t key = e->key ^ e->z_side;
    int attackers_moved = e->side == ATT, king_moved = 0;
    if (attackers_moved) {
        key ^= e->z_att[frm] ^ e->z_att[to];
        relocate(e, frm, to);
    } else if (frm == e->king) {
        key ^= e->z_king[frm] ^ e->z_king[to];
        relocate(e, frm, to);
        e->king = to;
        king_moved = 1;
        if (frm == e->throne) e->king_left = 1;
    } else {
        key ^= e->z_dfn[frm] ^ e->z_dfn[to];
        relocate(e, frm, to);
    }
    int ncap = compute_captures(e, to, attackers_moved, u->caps);
    u->ncap = ncap;
    for (int i = 0; i < ncap; i++) {
        int s = u->caps[i];
        if (s == e->king) {
            key ^= e->z_king[s] ^ e->z_king[MAXSQ];
            e->sq[s] = EMPTY;
            e->king = -1;
        } else if (e->sq[s] == DEFP) {
            key ^= e->z_dfn[s];
            lift(e, s);
        } else {
            key ^= e->z_att[s];
            lift(e, s);
        }
    }
    e->key = key;
    int winner = -1, reason = R_NONE;
    if (attackers_moved) {
        if (e->king < 0) { winner = ATT; reason = R_KING_CAPTURED; }
        else if (e->cfg[C_ENCIRCLEMENT] && encircled(e)) { winner = ATT; reason = R_ENCIRCLEMENT; }
    } else {
        if (king_moved && e->escape[to]) { winner = DEF; reason = R_ESCAPE; }
        else if (e->cfg[C_EXIT_FORT] && e->king >= 0 && e->edge[e->king] && exit_fort(e)) {
            winner = DEF; reason = R_EXIT_FORT;
        }
    }
    e->side ^= 1;
    push_hist(e, key, ncap > 0);
    if (reason == R_NONE && e->cfg[C_REPETITION] && !ncap && count_key(e, key) >= 3) {
        if (e->cfg[C_REPETITION] == 1) { winner = -1; reason = R_REPETITION; }
        else if (!attackers_moved) { winner = ATT; reason = R_REPETITION; }
    }
    e->result_winner = winner;
    e->result_reason = reason;
    return ncap;
}

static void unmake(Engine *e) {
    Undo *u = &e->undo[--e->ply_made];
    int frm = u->move >> 9, to = u->move & 511;
    /* restore the captured pieces (the side that moved is u->side) */
    for (int i = 0; i < u->ncap; i++) {
        int s = u->caps[i];
        if (s == u->king) e->sq[s] = KINGP;
        else put(e, s, u->side == ATT ? DEFP : ATTP);
    }
    if (u->side == DEF && frm == u->king) {
        e->sq[to] = EMPTY;
        e->sq[frm] = KINGP;
    } else {
        relocate(e, to, frm);
    }
    e->king = u->king; e->side = u->side; e->king_left = u->king_left;
    e->result_winner = u->result_winner; e->result_reason = u->result_reason;
    e->key = u->key;
    e->hlen--;
    e->hstart = u->hstart;
}

static void make_null(Engine *e) {
    Undo *u = &e->undo[e->ply_made++];
    u->king = e->king; u->side = e->side; u->king_left = e->king_left;
    u->result_winner = e->result_winner; u->result_reason = e->result_reason;
    u->key = e->key; u->hstart = e->hstart; u->move = -1; u->ncap = 0;
    e->key ^= e->z_side;
    e->side ^= 1;
    push_hist(e, e->key, 1);
}

static void unmake_null(Engine *e) {
    Undo *u = &e->undo[--e->ply_made];
    e->side = u->side; e->key = u->key;
    e->result_winner = u->result_winner; e->result_reason = u->result_reason;
    e->hlen--;
    e->hstart = u->hstart;
}

/* ---------------------------------------------------------------- evaluation -------------- */
/* squares where the king may stop with an open line to an escape square (the king's own
 * square counted as empty): evaluate.py escape_lines()[0] */
static void escape_lines(const Engine *e, uint8_t *e1) {
    memset(e1, 0, (size_t)e->count);
    int closed = !e->cfg[C_MAY_THRONE] && e->king_left;
    const uint8_t *stop = closed ? e->king_stop_closed : e->king_stop;
    for (int i = 0; i < e->nescapes; i++) {
        int s = e->escapes[i];
        int p = e->sq[s];
        if (p == ATTP || p == DEFP) continue;
        for (int d = 0; d < 4; d++) {
            int q = e->nbr[s][d];
            while (q >= 0) {
                int pq = e->sq[q];
                if (!e->king_pass[q] || pq == ATTP || pq == DEFP) break;
                if (stop[q]) e1[q] = 1;
                q = e->nbr[q][d];
            }
        }
    }
}

static int reaches_escape(const Engine *e) {
    uint8_t seen[MAXSQ];
    int stack[MAXSQ], top = 0;
    memset(seen, 0, (size_t)e->count);
    seen[e->king] = 1;
    stack[top++] = e->king;
    while (top) {
        int s = stack[--top];
        if (e->escape[s]) return 1;
        for (int d = 0; d < 4; d++) {
            int a = e->nbr[s][d];
            if (a >= 0 && !seen[a] && e->sq[a] != ATTP) {
                seen[a] = 1;
                stack[top++] = a;
            }
        }
    }
    return 0;
}

/* how many escape squares the king could walk to, or (defenders) edge squares the defenders
 * could walk to, through squares without attackers */
static int flood_count(const Engine *e, int defenders, const uint8_t *target) {
    uint8_t seen[MAXSQ];
    int stack[MAXSQ], top = 0, hits = 0;
    memset(seen, 0, (size_t)e->count);
    if (e->king >= 0) { seen[e->king] = 1; stack[top++] = e->king; }
    if (defenders)
        for (int i = 0; i < e->pcount[DEF]; i++) {
            int s = e->plist[DEF][i];
            seen[s] = 1;
            stack[top++] = s;
        }
    while (top) {
        int s = stack[--top];
        hits += target[s];
        for (int d = 0; d < 4; d++) {
            int a = e->nbr[s][d];
            if (a >= 0 && !seen[a] && e->sq[a] != ATTP) {
                seen[a] = 1;
                stack[top++] = a;
            }
        }
    }
    return hits;
}

static int evaluate(const Engine *e) {
    const int *c = e->cfg;
    int score = c[W_ATTACKER] * e->pcount[ATT] - c[W_DEFENDER] * e->pcount[DEF];
    if (c[C_HAS_PST]) {
        for (int i = 0; i < e->pcount[ATT]; i++) score += e->pst_att[e->plist[ATT][i]];
        for (int i = 0; i < e->pcount[DEF]; i++) score -= e->pst_dfn[e->plist[DEF][i]];
        if (e->king >= 0) score -= e->pst_king[e->king];
    }
    if (c[W_DEF_EDGE]) score -= c[W_DEF_EDGE] * flood_count(e, 1, e->edge);
    if (e->king >= 0) {
        int king = e->king;
        int32_t kd[128];
        int nk = destinations(e, king, king_lines_kind(e), kd, 0);
        uint8_t e1[MAXSQ];
        escape_lines(e, e1);
        int esc = 0, threats = 0;
        for (int i = 0; i < nk; i++) {
            esc += e->escape[kd[i]];
            threats += e1[kd[i]];
        }
        score -= c[W_KING_MOBILITY] * nk;
        score -= c[W_KING_THREATS] * threats + c[W_KING_LINES] * esc;
        score += c[W_KING_DISTANCE] * e->distance[king];
        int adj_att = 0, adj_dfn = 0;
        for (int d = 0; d < 4; d++) {
            int a = e->nbr[king][d];
            if (a < 0) continue;
            adj_att += e->sq[a] == ATTP;
            adj_dfn += e->sq[a] == DEFP;
        }
        score += c[W_KING_ADJACENT] * adj_att;
        score -= c[W_KING_GUARDS] * adj_dfn;
        if (c[W_KING_CORNERS]) {
            int corners = flood_count(e, 0, e->escape);
            score -= c[W_KING_CORNERS] * corners;
            if (!corners) score += c[W_SEALED];
        } else if (c[W_SEALED] && !reaches_escape(e)) {
            score += c[W_SEALED];
        }
        if (c[W_OPEN_LINES]) {
            int open = 0;
            for (int s = 0; s < e->count; s++) open += e1[s];
            score -= c[W_OPEN_LINES] * open;
        }
    }
    int guard = 0, trap = 0, edge = 0;
    for (int i = 0; i < e->pcount[ATT]; i++) {
        int s = e->plist[ATT][i];
        guard += e->guard[s];
        trap += e->trap[s];
        edge += e->edge[s];
    }
    score += c[W_CORNER_GUARD] * guard - c[W_CORNER_TRAP] * trap + c[W_EDGE] * edge;
    score += e->side == ATT ? c[W_TEMPO] : -c[W_TEMPO];
    return e->side == ATT ? score : -score;
}

/* ---------------------------------------------------------------- search helpers ---------- */
static double now(const Engine *e) {
    struct timespec ts;
    clock_gettime(e->p.clock_cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return ((double)ts.tv_sec + ts.tv_nsec * 1e-9) * e->p.time_scale;
}

static void check_time(Engine *e) {
    if (e->deadline > 0 && now(e) >= e->deadline) e->aborted = 1;
    if (e->node_limit && e->nodes >= e->node_limit) e->aborted = 1;
    if (!(e->nodes & 16383) && e->p.poll && e->p.poll()) e->aborted = 1;
}

static int terminal(const Engine *e, int ply) {
    if (e->result_winner < 0) return 0;
    return e->result_winner == e->side ? WIN - ply : -(WIN - ply);
}

/* the king's destinations: bitmap kd (1 per square) and the escape squares among them */
static int king_escape(const Engine *e, uint8_t *kdmap, int *esc_sq, int *nesc) {
    int32_t kd[128];
    *nesc = 0;
    if (e->king < 0) return 0;
    int nk = destinations(e, e->king, king_lines_kind(e), kd, 0);
    if (kdmap) memset(kdmap, 0, (size_t)e->count);
    for (int i = 0; i < nk; i++) {
        if (kdmap) kdmap[kd[i]] = 1;
        if (e->escape[kd[i]]) esc_sq[(*nesc)++] = kd[i];
    }
    return nk;
}

/* squares that block every open line from the king to the escape squares, and his neighbours */
static void block_mask(const Engine *e, const int *esc, int nesc, uint8_t *mask) {
    int king = e->king;
    memset(mask, 0, (size_t)e->count);
    for (int i = 0; i < nesc; i++) {
        int target = esc[i];
        for (int d = 0; d < 4; d++) {
            int q = e->nbr[king][d], hit = 0;
            while (q >= 0) { if (q == target) { hit = 1; break; } q = e->nbr[q][d]; }
            if (!hit) continue;
            q = e->nbr[king][d];
            while (q >= 0) { mask[q] = 1; if (q == target) break; q = e->nbr[q][d]; }
        }
    }
    for (int d = 0; d < 4; d++)
        if (e->nbr[king][d] >= 0) mask[e->nbr[king][d]] = 1;
}

/* capmap[s] = 1 where a piece of the side to move arriving makes an ordinary custodial capture
 * (search.py capture_squares) */
static void capture_map(const Engine *e, uint8_t *capmap) {
    memset(capmap, 0, (size_t)e->count);
    int side = e->side, victims = side == ATT ? DEF : ATT;
    for (int i = 0; i < e->pcount[victims]; i++) {
        int v = e->plist[victims][i];
        for (int d = 0; d < 4; d++) {
            int to = e->nbr[v][d ^ 1], far = e->nbr[v][d]; /* d ^ 1: the opposite direction */
            if (to < 0 || far < 0 || e->sq[to] != EMPTY) continue;
            int p = e->sq[far];
            if (side == ATT) {
                if (p == ATTP || hostile_empty(e, far, 1)) capmap[to] = 1;
            } else if (p == DEFP || (p == KINGP && e->cfg[C_KING_ARMED]) || hostile_empty(e, far, 0)) {
                capmap[to] = 1;
            }
        }
    }
}

/* whether a piece of the side to move arriving on `to` makes an ordinary custodial capture */
static int is_capture_square(const Engine *e, int to) {
    int side = e->side;
    for (int d = 0; d < 4; d++) {
        int n1 = e->nbr[to][d];
        if (n1 < 0) continue;
        int n2 = e->nbr[n1][d];
        if (n2 < 0) continue;
        int v = e->sq[n1], p = e->sq[n2];
        if (side == ATT) {
            if (v != DEFP) continue;
            if (p == ATTP || hostile_empty(e, n2, 1)) return 1;
        } else {
            if (v != ATTP) continue;
            if (p == DEFP || (p == KINGP && e->cfg[C_KING_ARMED]) || hostile_empty(e, n2, 0))
                return 1;
        }
    }
    return 0;
}

static void tt_store(Engine *e, uint64_t key, int depth, int flag, int score, int move, int ply) {
    if (score >= MATE_BOUND) score += ply;
    else if (score <= -MATE_BOUND) score -= ply;
    TTEntry *t = &e->tt[key & e->tt_mask];
    t->key = key; t->depth = (int16_t)depth; t->flag = (uint8_t)flag;
    t->score = score;
    t->move = move;
}

static TTEntry *tt_probe(Engine *e, uint64_t key) {
    TTEntry *t = &e->tt[key & e->tt_mask];
    return t->key == key && t->move >= 0 ? t : NULL;
}

static int contains(const int32_t *moves, int n, int m) {
    for (int i = 0; i < n; i++) if (moves[i] == m) return 1;
    return 0;
}

static int quiesce(Engine *e, int alpha, int beta, int ply, int qd);

/* sort moves by score, highest first, keeping the order of equal scores (merge sort) */
static void stable_sort_desc(int32_t *moves, int32_t *scores, int n) {
    if (n < 2) return;
    if (n <= 12) {
        for (int i = 1; i < n; i++) {
            int32_t m = moves[i], sc = scores[i];
            int j = i - 1;
            while (j >= 0 && scores[j] < sc) { moves[j + 1] = moves[j]; scores[j + 1] = scores[j]; j--; }
            moves[j + 1] = m; scores[j + 1] = sc;
        }
        return;
    }
    int h = n / 2;
    stable_sort_desc(moves, scores, h);
    stable_sort_desc(moves + h, scores + h, n - h);
    int32_t tm[MAXMOVES], ts[MAXMOVES];
    int a = 0, b = h, k = 0;
    while (a < h && b < n) {
        if (scores[b] > scores[a]) { tm[k] = moves[b]; ts[k++] = scores[b++]; }
        else { tm[k] = moves[a]; ts[k++] = scores[a++]; }
    }
    while (a < h) { tm[k] = moves[a]; ts[k++] = scores[a++]; }
    while (b < n) { tm[k] = moves[b]; ts[k++] = scores[b++]; }
    memcpy(moves, tm, sizeof(int32_t) * (size_t)n);
    memcpy(scores, ts, sizeof(int32_t) * (size_t)n);
}

static int extension(Engine *e) {
    if (e->result_reason || e->side != ATT || e->king < 0) return 0;
    int esc[64], nesc;
    king_escape(e, NULL, esc, &nesc);
    return nesc ? 1 : 0;
}

static const int LMP[4] = {0, 8, 16, 30};
static const int FUT[3] = {0, 150, 350};

static int negamax(Engine *e, int depth, int alpha, int beta, int ply, int allow_null) {
    e->nodes++;
    if (!(e->nodes & 127)) check_time(e);
    if (e->aborted) return 0;
    if (e->result_reason) return terminal(e, ply);
    if (depth <= 0) return quiesce(e, alpha, beta, ply, 0);
    if (ply >= MAXPLY - 2) return evaluate(e);
    int side = e->side, king = e->king;
    uint8_t kd[MAXSQ];
    int esc[64], nesc;
    king_escape(e, kd, esc, &nesc);
    if (king < 0) memset(kd, 0, (size_t)e->count);
    if (nesc && side == DEF) return WIN - ply - 1;
    int alpha0 = alpha, pv_node = beta - alpha > 1;
    uint64_t key = e->key;
    int tt_move = 0;
    TTEntry *t = tt_probe(e, key);
    if (t) {
        tt_move = t->move;
        if (t->depth >= depth && !pv_node && e->p.tt_cutoffs) {
            int score = t->score;
            if (score >= MATE_BOUND) score -= ply;
            else if (score <= -MATE_BOUND) score += ply;
            if (t->flag == EXACT) return score;
            if (t->flag == LOWER && score >= beta) return score;
            if (t->flag == UPPER && score <= alpha) return score;
        }
    }
    int threatened = nesc > 0;
    if (allow_null && e->p.null_move && !pv_node && depth >= 3 && !threatened &&
        beta < MATE_BOUND && alpha > -MATE_BOUND && evaluate(e) >= beta) {
        make_null(e);
        int r = depth < 6 ? 2 : 3;
        int s = -negamax(e, depth - 1 - r, -beta, -beta + 1, ply + 1, 0);
        unmake_null(e);
        if (e->aborted) return 0;
        if (s >= beta) return s >= MATE_BOUND ? beta : s;
    }
    int32_t *moves = e->movebuf[ply];
    int nm = gen_moves(e, moves);
    if (!nm) {
        if (!e->cfg[C_NO_MOVES_LOSS]) return 0;
        return -(WIN - ply);
    }
    if (threatened) {
        uint8_t block[MAXSQ];
        block_mask(e, esc, nesc, block);
        int k = 0;
        for (int i = 0; i < nm; i++) if (block[moves[i] & 511]) moves[k++] = moves[i];
        if (!k) return -(WIN - ply - 2);
        nm = k;
    }
    /* order: TT move, captures, killers, quiet moves by history (stable, picked lazily) */
    int32_t ordered[MAXMOVES];
    uint8_t quiet_used[MAXMOVES];
    int32_t quiet[MAXMOVES];
    int no = 0, nq = 0;
    int has_tt = tt_move && contains(moves, nm, tt_move);
    uint8_t capmap[MAXSQ];
    capture_map(e, capmap);
    if (has_tt) ordered[no++] = tt_move;
    for (int i = 0; i < nm; i++) {
        int m = moves[i];
        if (m == tt_move) continue;
        if (capmap[m & 511]) ordered[no++] = m;
        else quiet[nq++] = m;
    }
    int32_t *killers = ply < KILLER_PLIES ? e->killers[ply] : NULL;
    int32_t k0 = killers ? killers[0] : 0, k1 = killers ? killers[1] : 0;
    memset(quiet_used, 0, (size_t)nq);
    if (k0) for (int i = 0; i < nq; i++) if (quiet[i] == k0) { quiet_used[i] = 1; ordered[no++] = k0; break; }
    if (k1) for (int i = 0; i < nq; i++) if (quiet[i] == k1 && !quiet_used[i]) { quiet_used[i] = 1; ordered[no++] = k1; break; }
    int n_front = no;
    /* the remaining quiet moves are picked one by one (highest history first, stable) */
    int quiet_left = 0;
    int32_t qscore[MAXMOVES]; /* history as it stands now: the order is fixed before the loop */
    for (int i = 0; i < nq; i++) {
        quiet_left += !quiet_used[i];
        qscore[i] = e->history[quiet[i]];
    }
    int total = n_front + quiet_left;
    int prune = 0;
    uint8_t keep[MAXSQ];
    if (depth <= 3 && e->p.lmp && !pv_node && !threatened && -MATE_BOUND < alpha &&
        alpha < MATE_BOUND) {
        prune = LMP[depth];
        if (depth <= 2 && e->p.futility && evaluate(e) + FUT[depth] <= alpha) prune = 1;
        memset(keep, 0, (size_t)e->count);
        if (king >= 0) {
            memcpy(keep, kd, (size_t)e->count);
            for (int d = 0; d < 4; d++) if (e->nbr[king][d] >= 0) keep[e->nbr[king][d]] = 1;
        }
    }
    int best = -INF, best_move = 0, quiet_seen = 0;
    int32_t *hist = e->history;
    int sorted_quiet = 0;
    for (int i = 0; i < total; i++) {
        int m;
        if (i < n_front) {
            m = ordered[i];
        } else {
            if (!sorted_quiet) { /* the quiet moves by history, best first, stable */
                int k = 0;
                for (int j = 0; j < nq; j++)
                    if (!quiet_used[j]) { quiet[k] = quiet[j]; qscore[k++] = qscore[j]; }
                stable_sort_desc(quiet, qscore, k);
                sorted_quiet = 1;
            }
            m = quiet[i - n_front];
        }
        if (prune && i >= n_front) {
            quiet_seen++;
            if (quiet_seen > prune && best > -MATE_BOUND) {
                int frm = m >> 9, to = m & 511;
                if (!(frm == king || keep[to])) continue;
            }
        }
        make(e, m);
        int ext = side == DEF ? extension(e) : 0;
        int s;
        if (i == 0) {
            s = -negamax(e, depth - 1 + ext, -beta, -alpha, ply + 1, 1);
        } else {
            int red = 0;
            if (e->p.lmr && depth >= 3 && i >= n_front + 2 && !ext && !threatened) {
                red = i < n_front + 10 ? 1 : (i < n_front + 30 ? 2 : 3);
                if (red > depth - 2) red = depth - 2;
            }
            s = -negamax(e, depth - 1 - red + ext, -alpha - 1, -alpha, ply + 1, 1);
            if (!e->aborted && s > alpha && (red || pv_node))
                s = -negamax(e, depth - 1 + ext, -beta, -alpha, ply + 1, 1);
        }
        unmake(e);
        if (e->aborted) return 0;
        if (s > best) {
            best = s;
            best_move = m;
            if (s > alpha) {
                alpha = s;
                if (s >= beta) {
                    if (!capmap[m & 511] && ply < KILLER_PLIES) {
                        if (killers[0] != m) { killers[1] = killers[0]; killers[0] = m; }
                        hist[m] += depth * depth;
                    }
                    break;
                }
            }
        }
    }
    if (best == -INF) best = alpha;
    int flag = (alpha0 < best && best < beta) ? EXACT : (best >= beta ? LOWER : UPPER);
    tt_store(e, key, depth, flag, best, best_move, ply);
    return best;
}

static int quiesce(Engine *e, int alpha, int beta, int ply, int qd) {
    e->nodes++;
    if (!(e->nodes & 127)) check_time(e);
    if (e->aborted) return 0;
    if (e->result_reason) return terminal(e, ply);
    if (ply >= MAXPLY - 2) return evaluate(e);
    int side = e->side, king = e->king;
    int esc[64], nesc;
    uint8_t kd[MAXSQ];
    king_escape(e, kd, esc, &nesc);
    int32_t *moves = e->movebuf[ply];
    if (nesc) {
        if (side == DEF) return WIN - ply - 1;
        int nm = gen_moves(e, moves);
        if (!nm) return e->cfg[C_NO_MOVES_LOSS] ? -(WIN - ply) : 0;
        uint8_t block[MAXSQ];
        block_mask(e, esc, nesc, block);
        int k = 0;
        for (int i = 0; i < nm; i++) if (block[moves[i] & 511]) moves[k++] = moves[i];
        if (!k) return -(WIN - ply - 2);
        if (qd >= e->p.qdepth) return evaluate(e);
        int best = -INF;
        for (int i = 0; i < k; i++) {
            make(e, moves[i]);
            int s = -quiesce(e, -beta, -alpha, ply + 1, qd + 1);
            unmake(e);
            if (e->aborted) return 0;
            if (s > best) {
                best = s;
                if (s > alpha) { alpha = s; if (s >= beta) break; }
            }
        }
        return best;
    }
    int stand = evaluate(e);
    if (qd >= e->p.qdepth) return stand;
    if (stand >= beta) return stand;
    if (stand > alpha) alpha = stand;
    int best = stand;
    int nm = gen_moves(e, moves), k = 0;
    uint8_t near[MAXSQ];
    memset(near, 0, (size_t)e->count);
    if (side == ATT && king >= 0)
        for (int d = 0; d < 4; d++) if (e->nbr[king][d] >= 0) near[e->nbr[king][d]] = 1;
    int32_t cand[MAXMOVES];
    uint8_t capmap[MAXSQ];
    capture_map(e, capmap);
    for (int i = 0; i < nm; i++) {
        int to = moves[i] & 511;
        if (near[to] || capmap[to]) cand[k++] = moves[i];
    }
    if (side == DEF && king >= 0 && qd < 2) {
        uint8_t e1[MAXSQ];
        escape_lines(e, e1);
        for (int s = 0; s < e->count; s++)
            if (kd[s] && e1[s]) cand[k++] = king << 9 | s;
    }
    for (int i = 0; i < k; i++) {
        make(e, cand[i]);
        int s = -quiesce(e, -beta, -alpha, ply + 1, qd + 1);
        unmake(e);
        if (e->aborted) return 0;
        if (s > best) {
            best = s;
            if (s > alpha) { alpha = s; if (s >= beta) break; }
        }
    }
    return best;
}

static int principal_variation(Engine *e, int first, int32_t *pv) {
    int len = 0, made = 0;
    uint64_t seen[64];
    int nseen = 0;
    pv[len++] = first;
    make(e, first);
    made++;
    seen[nseen++] = e->key;
    int32_t moves[MAXMOVES];
    while (made < 32 && !e->result_reason) {
        TTEntry *t = tt_probe(e, e->key);
        if (!t || !t->move) break;
        int nm = gen_moves(e, moves);
        if (!contains(moves, nm, t->move)) break;
        make(e, t->move);
        made++;
        int rep = 0;
        for (int i = 0; i < nseen; i++) rep |= seen[i] == e->key;
        if (rep) break;
        seen[nseen++] = e->key;
        pv[len++] = t->move;
    }
    while (made--) unmake(e);
    return len;
}

/* stable sort of root moves by score, best first (unscored last) */
static void sort_root(int32_t *order, int n, const int32_t *scores, const uint8_t *scored) {
    for (int i = 1; i < n; i++) {
        int32_t m = order[i];
        int key = scored[i] ? scores[i] : -INF;
        int32_t sc = scores[i];
        uint8_t sd = scored[i];
        int j = i - 1;
        while (j >= 0 && (scored[j] ? scores[j] : -INF) < key) {
            order[j + 1] = order[j];
            ((int32_t *)scores)[j + 1] = scores[j];
            ((uint8_t *)scored)[j + 1] = scored[j];
            j--;
        }
        order[j + 1] = m;
        ((int32_t *)scores)[j + 1] = sc;
        ((uint8_t *)scored)[j + 1] = sd;
    }
}

static int kth_best(const int32_t *scores, const uint8_t *scored, int n, int k) {
    /* the k-th best (1-based) of the scored entries */
    int32_t tmp[MAXMOVES];
    int c = 0;
    for (int i = 0; i < n; i++) if (scored[i]) tmp[c++] = scores[i];
    for (int i = 1; i < c; i++) {
        int v = tmp[i], j = i - 1;
        while (j >= 0 && tmp[j] < v) { tmp[j + 1] = tmp[j]; j--; }
        tmp[j + 1] = v;
    }
    return tmp[k - 1];
}

int tafl_search(Engine *e, const SearchParams *params, SearchOut *out) {
    e->p = *params;
    if (e->p.time_scale <= 0) e->p.time_scale = 1.0;
    e->start = now(e);
    e->nodes = 0;
    e->aborted = 0;
    e->deadline = params->seconds > 0 ? e->start + params->seconds : 0;
    e->node_limit = params->nodes;
    e->ply_made = 0;
    out->nroot = 0; out->pvlen = 0; out->depth = 0; out->nodes = 0;
    int32_t moves[MAXMOVES];
    int nm = gen_moves(e, moves);
    if (!nm) { out->best_move = 0; out->best_score = 0; out->seconds = 0; return 0; }
    memset(e->killers, 0, sizeof e->killers);
    int hsize = e->count << 9;
    for (int i = 0; i < hsize; i++) e->history[i] >>= 3;
    /* root order: TT move, the king's escapes, captures, history */
    TTEntry *t = tt_probe(e, e->key);
    int tt_move = t ? t->move : 0;
    int esc[64], nesc;
    king_escape(e, NULL, esc, &nesc);
    int64_t keys[MAXMOVES];
    int32_t order[MAXMOVES];
    for (int i = 0; i < nm; i++) {
        int m = moves[i], to = m & 511;
        int64_t k = 0;
        if (m == tt_move) k = -1000000000LL;
        else {
            if (nesc && e->side == DEF && (m >> 9) == e->king)
                for (int j = 0; j < nesc; j++) if (esc[j] == to) k -= 100000000LL;
            if (is_capture_square(e, to)) k -= 1000000LL;
            k -= e->history[m];
        }
        keys[i] = k;
        order[i] = m;
    }
    for (int i = 1; i < nm; i++) { /* stable insertion sort by key */
        int64_t k = keys[i]; int32_t m = order[i]; int j = i - 1;
        while (j >= 0 && keys[j] > k) { keys[j + 1] = keys[j]; order[j + 1] = order[j]; j--; }
        keys[j + 1] = k; order[j + 1] = m;
    }
    int best_move = order[0], best_score = -INF, depth_done = 0;
    int max_depth = params->depth > 0 ? params->depth : 64;
    int exact_all = params->exact_all;
    int multipv = params->multipv > 0 ? params->multipv : 1;
    if (nm == 1 && !exact_all && max_depth > 1) max_depth = 1;
    int32_t scores[MAXMOVES], last_scores[MAXMOVES], last_moves[MAXMOVES];
    uint8_t scored[MAXMOVES];
    int nlast = 0;
    int32_t pv[64];
    int pvlen = 1;
    pv[0] = best_move;
    for (int depth = 1; depth <= max_depth; depth++) {
        int alpha = -INF, beta = INF, iter_best = 0, iter_score = -INF;
        memset(scored, 0, (size_t)nm);
        int stopped = 0;
        for (int i = 0; i < nm; i++) {
            int m = order[i];
            make(e, m);
            int ext = extension(e);
            int s;
            if (exact_all) {
                int nscored = 0;
                for (int j = 0; j < nm; j++) nscored += scored[j];
                int lo = (params->exact_all > 1 || nscored < multipv)
                             ? -INF : kth_best(scores, scored, nm, multipv) - 1;
                s = -negamax(e, depth - 1 + ext, -INF, -lo, 1, 1);
            } else if (i == 0) {
                s = -negamax(e, depth - 1 + ext, -beta, -alpha, 1, 1);
            } else {
                s = -negamax(e, depth - 1 + ext, -alpha - 1, -alpha, 1, 1);
                if (!e->aborted && s > alpha && s < beta)
                    s = -negamax(e, depth - 1 + ext, -beta, -alpha, 1, 1);
            }
            unmake(e);
            if (e->aborted) { stopped = 1; break; }
            scores[i] = s;
            scored[i] = 1;
            if (s > iter_score) {
                iter_score = s;
                iter_best = m;
                if (s > alpha) alpha = s;
                if (!exact_all && (i > 0 || depth_done == 0) && s > -INF) {
                    best_move = m;
                    best_score = s;
                }
                if (s >= beta) break;
            }
        }
        if (stopped) break;
        sort_root(order, nm, scores, scored);
        best_move = iter_best;
        best_score = iter_score;
        nlast = 0;
        for (int i = 0; i < nm; i++)
            if (scored[i]) { last_moves[nlast] = order[i]; last_scores[nlast++] = scores[i]; }
        depth_done = depth;
        tt_store(e, e->key, depth, EXACT, best_score, best_move, 0);
        pvlen = principal_variation(e, best_move, pv);
        if (params->on_info) params->on_info(depth, best_score, e->nodes, now(e) - e->start, pv, pvlen);
        int abs_score = best_score < 0 ? -best_score : best_score;
        if (abs_score >= MATE_BOUND && WIN - abs_score <= depth) break;
        if (params->soft > 0 && now(e) - e->start >= params->soft * 0.5) break;
    }
    if (best_score == -INF) best_score = 0;
    if (pv[0] != best_move) { pv[0] = best_move; pvlen = 1; }
    out->best_move = best_move;
    out->best_score = best_score;
    out->depth = depth_done;
    out->nodes = e->nodes;
    out->seconds = now(e) - e->start;
    out->pvlen = pvlen;
    memcpy(out->pv, pv, sizeof(int32_t) * (size_t)pvlen);
    out->nroot = nlast;
    memcpy(out->root_moves, last_moves, sizeof(int32_t) * (size_t)nlast);
    memcpy(out->root_scores, last_scores, sizeof(int32_t) * (size_t)nlast);
    return 1;
}

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
    e->tt = calloc((size_t)1 << tt_bits, sizeof(TTEntry));
    e->tt_mask = ((uint64_t)1 << tt_bits) - 1;
    e->history = calloc((size_t)count << 9, sizeof(int32_t));
    if (!e->tt || !e->history) { free(e->tt); free(e->history); free(e); return NULL; }
    for (size_t i = 0; i <= e->tt_mask; i++) e->tt[i].move = -1;
    e->p.time_scale = 1.0;
    e->p.qdepth = 6;
    return e;
}

void tafl_free(Engine *e) {
    if (!e) return;
    free(e->tt);
    free(e->history);
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
    return 1;
}

uint64_t tafl_key(const Engine *e) { return e->key; }
int tafl_moves(Engine *e, int32_t *out) { return gen_moves(e, out); }
int tafl_evaluate(const Engine *e) { return evaluate(e); }

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
