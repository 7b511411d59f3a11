/* The learned evaluation network (network.py in C). Part of tafl.c (one translation unit).
 *
 * One hidden layer over the pieces: a unit's input is its bias plus one int8 weight for each
 * piece on the board (its kind and square) and one for the attackers to move, in 64ths; its
 * activation is that sum clipped to 0..64 (0..1.0); the output is the activations' dot product
 * with the output weights (hundredths of a soldier) divided by 64, plus the output bias, from
 * the attackers' point of view. Integer arithmetic only, so network.py's reference gives the
 * same number. The units' sums are kept up to date move by move (make copies the last ply's
 * and changes the rows of the pieces moved and taken; unmake goes back a ply), so an
 * evaluation costs one pass over the hidden units. Included before rules.c, whose make and
 * unmake keep them. */

/* add (sign 1) or take away (-1) the weights of a piece of `kind` on `s` */
static void network_row(const Engine *e, int32_t *acc, int kind, int s, int sign) {
    const int16_t *w = e->nn_w1[kind][s];
    int h = e->nn_h;
    if (sign > 0) for (int j = 0; j < h; j++) acc[j] += w[j];
    else for (int j = 0; j < h; j++) acc[j] -= w[j];
}

/* the sums of the position as it stands, from its pieces */
static void network_refresh(Engine *e) {
    if (!e->nn_on) return;
    int32_t *acc = e->nn_acc[e->ply_made];
    for (int j = 0; j < e->nn_h; j++) acc[j] = e->nn_b1[j];
    for (int kind = 0; kind < 2; kind++)
        for (int i = 0; i < e->pcount[kind]; i++) network_row(e, acc, kind, e->plist[kind][i], 1);
    if (e->king >= 0) network_row(e, acc, 2, e->king, 1);
}

/* the last ply's sums copied for the ply being made */
static int32_t *network_next(Engine *e) {
    int32_t *acc = e->nn_acc[e->ply_made];
    memcpy(acc, e->nn_acc[e->ply_made - 1], sizeof(int32_t) * (size_t)e->nn_h);
    return acc;
}

static int network_score(const Engine *e) {
    int h = e->nn_h;
    const int32_t *acc = e->nn_acc[e->ply_made];
    const int16_t *side = e->nn_w1_side;
    int att = e->side == ATT;
    int32_t out = 0;
    for (int j = 0; j < h; j++) {
        int32_t a = acc[j] + (att ? side[j] : 0);
        a = a < 0 ? 0 : (a > NN_ONE ? NN_ONE : a);
        out += a * e->nn_w2[j];
    }
    /* division rounding toward minus infinity, as Python's // */
    int32_t q = out / NN_ONE;
    if (out % NN_ONE && out < 0) q -= 1;
    return q + e->nn_b2;
}
