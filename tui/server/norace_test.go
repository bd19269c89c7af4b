//go:build !race

package server_test

// collectGuesses is how many wrong collect tries the SSH test types:
// must-show 2's 300.
const collectGuesses = 300
