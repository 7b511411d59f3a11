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
