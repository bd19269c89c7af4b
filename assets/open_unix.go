//go:build unix

package assets

import (
	"os"
	"syscall"
)

// openLayoutFlags open a layout file without blocking (opening a FIFO
// waits for a writer otherwise) and without a terminal named instead
// becoming the server's controlling terminal.
const openLayoutFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
