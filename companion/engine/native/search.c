/* The search below the root: alpha-beta with its move ordering, pruning and the tafl
 * quiescence (search.py in C). Part of tafl.c (one translation unit). */

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

/* the empty squares beside the king where an attacker arriving would capture him */
static int king_capture_squares(Engine *e, int *out) {
    int king = e->king, cnt = 0;
    if (king < 0) return 0;
    for (int d = 0; d < 4; d++) {
        int a = e->nbr[king][d];
        if (a < 0 || e->sq[a] != EMPTY) continue;
        e->sq[a] = ATTP;
        if (king_is_captured(e, king, a)) out[cnt++] = a;
        e->sq[a] = EMPTY;
    }
    return cnt;
}

/* the squares where an attacker stops the king's escape: every square of his one open line to
 * an escape square (with two or more lines open no single move blocks them all), and the
 * squares where an attacker captures him */
static void block_mask(Engine *e, const int *esc, int nesc, uint8_t *mask) {
    int king = e->king;
    memset(mask, 0, (size_t)e->count);
    if (nesc == 1) {
        int target = esc[0];
        for (int d = 0; d < 4; d++) {
            int q = e->nbr[king][d], hit = 0;
            while (q >= 0) { if (q == target) { hit = 1; break; } q = e->nbr[q][d]; }
            if (!hit) continue;
            q = e->nbr[king][d];
            while (q >= 0) { mask[q] = 1; if (q == target) break; q = e->nbr[q][d]; }
        }
    }
    int kc[4], nkc = king_capture_squares(e, kc);
    for (int i = 0; i < nkc; i++) mask[kc[i]] = 1;
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
    if (side == ATT && king >= 0) {
        int kc[4], nkc = king_capture_squares(e, kc);
        for (int i = 0; i < nkc; i++) near[kc[i]] = 1;
    }
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
