/* The root: iterative deepening, the root moves' scores, the principal variation
 * (search.py Searcher.search in C). Part of tafl.c (one translation unit). */

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
    network_refresh(e); /* the root's sums (a move made through tafl_make is forgotten) */
    ecache_clear(e);
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
