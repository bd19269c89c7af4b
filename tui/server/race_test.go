//go:build race

package server_test

// collectGuesses is how many wrong collect tries the SSH test types:
// under the race detector a tenth of must-show 2's 300, which proves the
// same (the count pauses after five), at a tenth of the cost.
const collectGuesses = 40
