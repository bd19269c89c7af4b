//go:build race

package db_test

// newFileRounds is how many times TestOpen_ManyAtOnceOnANewFile starts its
// eight stores on a new file at once: under the race detector three, which
// is what looks for data races between them (each round migrates a file,
// over a second there); the ten that look for the lost race to create the
// schema run in CI's slow step, without the detector.
const newFileRounds = 3
