/* The learned evaluation network (network.py in C). Part of tafl.c (one translation unit).
 *
 * One hidden layer over the pieces: a unit's input is its bias plus one int8 weight for each
 * piece on the board (its kind and square) and one for the attackers to move, in 64ths; its
 * activation is that sum clipped to 0..64 (0..1.0); the output is the activations' dot product
 * with the output weights (hundredths of a soldier) divided by 64, plus the output bias, from
 * the attackers' point of view. Integer arithmetic only, so network.py's reference gives the
 * same number. Recomputed from the pieces at every evaluation: about 40 pieces times the
 * hidden units, cheaper than the evaluation's line fills. */

static int network_score(const Engine *e) {
    int h = e->nn_h;
    int32_t acc[NN_MAXH];
    for (int j = 0; j < h; j++) acc[j] = e->nn_b1[j];
    for (int kind = 0; kind < 2; kind++) {
        for (int i = 0; i < e->pcount[kind]; i++) {
            const int16_t *w = e->nn_w1[kind][e->plist[kind][i]];
            for (int j = 0; j < h; j++) acc[j] += w[j];
        }
    }
    if (e->king >= 0) {
        const int16_t *w = e->nn_w1[2][e->king];
        for (int j = 0; j < h; j++) acc[j] += w[j];
    }
    if (e->side == ATT)
        for (int j = 0; j < h; j++) acc[j] += e->nn_w1_side[j];
    int32_t out = 0;
    for (int j = 0; j < h; j++) {
        int32_t a = acc[j] < 0 ? 0 : (acc[j] > NN_ONE ? NN_ONE : acc[j]);
        out += a * e->nn_w2[j];
    }
    /* division rounding toward minus infinity, as Python's // */
    int32_t q = out / NN_ONE;
    if (out % NN_ONE && out < 0) q -= 1;
    return q + e->nn_b2;
}
