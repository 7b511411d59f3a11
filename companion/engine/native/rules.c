/* The position and the rules: moves, captures, results, make and unmake (position.py and
 * rules/core.py in C). Part of tafl.c (one translation unit). */

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
    /* 0 strong, 1 strong_by_throne, 2 weak, 3 strong_on_throne (hnefatafl.org's brandubh) */
    int strength = e->cfg[C_KING_STRENGTH];
    if (strength == 1) {
        int near = king == e->throne;
        for (int d = 0; d < 4 && !near; d++)
            if (e->nbr[king][d] == e->throne && e->throne >= 0) near = 1;
        strength = near ? 0 : 2;
    } else if (strength == 3) {
        strength = king == e->throne ? 0 : 2;
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

/* ---------------------------------------------------------------- flood fills ------------- */
static inline void bb_set(BB *b, int s) { b->w[s >> 6] |= (uint64_t)1 << (s & 63); }

static inline int bb_any_and(const BB *a, const BB *b, int nw) {
    uint64_t x = 0;
    for (int i = 0; i < nw; i++) x |= a->w[i] & b->w[i];
    return x != 0;
}

static inline int bb_count_and(const BB *a, const BB *b, int nw) {
    int c = 0;
    for (int i = 0; i < nw; i++) c += __builtin_popcountll(a->w[i] & b->w[i]);
    return c;
}

/* the squares reached from `reach` (grown in place) by steps through squares without
 * attackers; stops early, returning 1, once it touches `stop` (NULL: never) */
#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;
#define U128(bb) ((u128)(bb).w[0] | (u128)(bb).w[1] << 64)

/* flood() on boards of up to 128 squares (11 x 11 and smaller), each step on one 128-bit word:
 * the same squares in about 40 % fewer instructions than the word loops (callgrind, Copenhagen) */
static int flood128(const Engine *e, BB *reach, const BB *stop) {
    int n = e->n;
    u128 free = U128(e->bb_full), r = U128(*reach), halt = stop ? U128(*stop) : 0;
    u128 not_first = U128(e->bb_not_first), not_last = U128(e->bb_not_last);
    for (int i = 0; i < e->pcount[ATT]; i++) free &= ~((u128)1 << e->plist[ATT][i]);
    int hit = 0;
    for (;;) {
        if (halt & r) { hit = 1; break; }
        u128 g = r | ((r << 1) & not_first) | ((r >> 1) & not_last) | (r << n) | (r >> n);
        g &= free;
        if (g == r) break;
        r = g;
    }
    reach->w[0] = (uint64_t)r;
    reach->w[1] = (uint64_t)(r >> 64);
    return hit;
}
#endif

static int flood(const Engine *e, BB *reach, const BB *stop) {
    int nw = e->nw, n = e->n;
#ifdef __SIZEOF_INT128__
    if (nw <= 2) return flood128(e, reach, stop);
#endif
    BB free = e->bb_full;
    for (int i = 0; i < e->pcount[ATT]; i++) {
        int s = e->plist[ATT][i];
        free.w[s >> 6] &= ~((uint64_t)1 << (s & 63));
    }
    for (;;) {
        if (stop && bb_any_and(reach, stop, nw)) return 1;
        BB g;
        uint64_t changed = 0, c1 = 0, cn = 0, d1 = 0, dn = 0;
        for (int i = 0; i < nw; i++) { /* towards higher squares: east (+1) and north (+n) */
            uint64_t v = reach->w[i];
            uint64_t east = (v << 1) | c1, north = (v << n) | cn;
            c1 = v >> 63;
            cn = v >> (64 - n);
            g.w[i] = v | (east & e->bb_not_first.w[i]) | north;
        }
        for (int i = nw - 1; i >= 0; i--) { /* towards lower squares: west (-1) and south (-n) */
            uint64_t v = reach->w[i];
            uint64_t west = (v >> 1) | d1, south = (v >> n) | dn;
            d1 = v << 63;
            dn = v << (64 - n);
            g.w[i] |= (west & e->bb_not_last.w[i]) | south;
        }
        for (int i = 0; i < nw; i++) {
            g.w[i] &= free.w[i];
            changed |= g.w[i] ^ reach->w[i];
            reach->w[i] = g.w[i];
        }
        if (!changed) return 0;
    }
}

/* the defenders (the king with them) can no longer reach the board's edge */
static int encircled(const Engine *e) {
    BB reach;
    memset(&reach, 0, sizeof reach);
    for (int i = 0; i < e->pcount[DEF]; i++) {
        int s = e->plist[DEF][i];
        if (e->edge[s]) return 0;
        bb_set(&reach, s);
    }
    if (e->king >= 0) {
        if (e->edge[e->king]) return 0;
        bb_set(&reach, e->king);
    }
    return !flood(e, &reach, &e->bb_edge);
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
    int32_t *acc = NULL;
    if (e->nn_on) {
        int kind = attackers_moved ? 0 : (king_moved ? 2 : 1);
        acc = network_next(e);
        network_row(e, acc, kind, frm, -1);
        network_row(e, acc, kind, to, 1);
    }
    for (int i = 0; i < ncap; i++) {
        int s = u->caps[i];
        int kind;
        if (s == e->king) {
            kind = 2;
            key ^= e->z_king[s] ^ e->z_king[MAXSQ];
            e->sq[s] = EMPTY;
            e->king = -1;
        } else if (e->sq[s] == DEFP) {
            kind = 1;
            key ^= e->z_dfn[s];
            lift(e, s);
        } else {
            kind = 0;
            key ^= e->z_att[s];
            lift(e, s);
        }
        if (acc) network_row(e, acc, kind, s, -1);
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
    if (e->nn_on) network_next(e);
}

static void unmake_null(Engine *e) {
    Undo *u = &e->undo[--e->ply_made];
    e->side = u->side; e->key = u->key;
    e->result_winner = u->result_winner; e->result_reason = u->result_reason;
    e->hlen--;
    e->hstart = u->hstart;
}
