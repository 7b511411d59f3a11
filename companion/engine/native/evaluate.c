/* The static evaluation (evaluate.py in C). Part of tafl.c (one translation unit). */

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
    BB reach;
    memset(&reach, 0, sizeof reach);
    bb_set(&reach, e->king);
    return flood(e, &reach, &e->bb_escape);
}

/* the squares the king (defenders: the king and the defenders) could walk to through squares
 * without attackers, their own included */
static void walk(const Engine *e, int defenders, BB *reach) {
    memset(reach, 0, sizeof *reach);
    if (e->king >= 0) bb_set(reach, e->king);
    if (defenders)
        for (int i = 0; i < e->pcount[DEF]; i++) bb_set(reach, e->plist[DEF][i]);
    flood(e, reach, NULL);
}

/* how many escape squares the king could walk to through squares without attackers */
static int king_reach_count(const Engine *e, const BB *target) {
    BB reach;
    walk(e, 0, &reach);
    return bb_count_and(&reach, target, e->nw);
}

/* the learned corner zones (evaluate.py zone_score) */
static int zone_score(const Engine *e) {
    int n = e->n, kf = e->king % n, kr = e->king / n, score = 0;
    for (int k = 0; k < 4; k++) {
        int c = e->zone_corner[k];
        int d = abs(kf - c % n) + abs(kr - c / n);
        const int *w = e->zone_w[d <= e->zone_near ? 0 : (d <= e->zone_mid ? 1 : 2)];
        for (int i = 0; i < ZONE_SQUARES; i++) {
            int p = e->sq[e->zone_sq[k][i]];
            if (p == ATTP) score += w[e->zone_cls[k][i]];
            else if (p == DEFP) score += w[ZONE_CLASSES + e->zone_cls[k][i]];
        }
        int s2 = 1, s3 = 1;
        for (int i = 0; i < 3; i++) s2 &= e->sq[e->zone_seal2[k][i]] == ATTP;
        for (int i = 0; i < 4; i++) s3 &= e->sq[e->zone_seal3[k][i]] == ATTP;
        if (s2 || s3) score += w[2 * ZONE_CLASSES];
    }
    return score;
}

/* once the king is sealed in: the squares outside the defenders' room, weighted (evaluate.py
 * sealed_off, shut_off; the room walked already when walked is set) */
static int sealed_off(const Engine *e, BB *room, int walked) {
    if (!e->cfg[W_SEALED_OFF]) return 0;
    if (!walked) walk(e, 1, room);
    return e->cfg[W_SEALED_OFF] * (e->count - bb_count_and(room, &e->bb_full, e->nw));
}

static int evaluate_full(const Engine *e) {
    const int *c = e->cfg;
    int score = c[W_ATTACKER] * e->pcount[ATT] - c[W_DEFENDER] * e->pcount[DEF];
    if (c[C_HAS_PST]) {
        for (int i = 0; i < e->pcount[ATT]; i++) score += e->pst_att[e->plist[ATT][i]];
        for (int i = 0; i < e->pcount[DEF]; i++) score -= e->pst_dfn[e->plist[DEF][i]];
        if (e->king >= 0) score -= e->pst_king[e->king];
    }
    BB room;
    int walked = 0;
    if (c[W_DEF_EDGE] || c[W_DEF_SPACE]) { /* evaluate.py defenders_room */
        walk(e, 1, &room);
        walked = 1;
        score -= c[W_DEF_EDGE] * bb_count_and(&room, &e->bb_edge, e->nw);
        score -= c[W_DEF_SPACE] * bb_count_and(&room, &e->bb_full, e->nw);
    }
    if (e->zone_on && e->king >= 0) score += zone_score(e);
    if (e->nn_on) score += network_score(e);
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
            int corners = king_reach_count(e, &e->bb_escape);
            score -= c[W_KING_CORNERS] * corners;
            if (!corners) score += c[W_SEALED] + sealed_off(e, &room, walked);
        } else if ((c[W_SEALED] || c[W_SEALED_OFF]) && !reaches_escape(e)) {
            score += c[W_SEALED] + sealed_off(e, &room, walked);
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

/* ---------------------------------------------------------------- evaluation cache -------- */
/* A search evaluates some positions more than once (the null-move and futility tests, then the
 * quiescence's stand-pat; transpositions in the quiescence): the score of each position
 * evaluated is kept in a small table by its key, so repeated evaluations cost a lookup (7 % of
 * the core's instructions saved on Copenhagen, docs/engine.md *Figures*). The
 * score is the same as evaluate_full's (the key is the position's and the side to move; the
 * king having left the throne changes the escape lines, so it is mixed in), so a search at a
 * fixed number of nodes plays exactly as without the table, only sooner. */
static const uint64_t ECACHE_KING_LEFT = 0x9E3779B97F4A7C15ULL;

static void ecache_clear(Engine *e) {
    memset(e->ecache, 0, sizeof(EvalEntry) << ECACHE_BITS);
}

static int evaluate(const Engine *e) {
    uint64_t key = e->key ^ (e->king_left ? ECACHE_KING_LEFT : 0);
    if (!key) return evaluate_full(e);
    EvalEntry *c = &e->ecache[key & (((uint64_t)1 << ECACHE_BITS) - 1)];
    if (c->key == key) return c->score;
    int score = evaluate_full(e);
    c->key = key;
    c->score = score;
    return score;
}
