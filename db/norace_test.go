//go:build !race

package db_test

// newFileRounds is how many times TestOpen_ManyAtOnceOnANewFile starts its
// eight stores on a new file at once: ten, in CI's slow step (.ci/run).
const newFileRounds = 10
