//go:build !unix

package assets

import "os"

// openLayoutFlags open a layout file read-only (no FIFOs to block on).
const openLayoutFlags = os.O_RDONLY
