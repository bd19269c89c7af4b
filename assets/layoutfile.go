package assets

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"boxoffice/booking"
)

// Reading a cinema's own hall layout files. A layout is a few KB of
// text, and the name of one comes from outside the binary (a command
// line, a manager's form over SSH), so the file is bounded before
// anything is read: it is opened without blocking (a FIFO with no writer
// cannot hang the server), the opened file — not the path, which could
// be swapped meanwhile — must be a regular file of at most
// booking.MaxLayoutBytes, and it is read through a limit all the same (a
// file that grows after the check). What is refused is refused in words
// that never quote the file (booking.ParseLayoutFile).

// ReadLayoutFile reads and parses the hall layout at path, named in every
// message as the path (cleaned to print). For the command line, whose
// operator could read the file anyway.
func ReadLayoutFile(path string) (*booking.Hall, error) {
	name := booking.CleanLine(path, 200)
	f, err := os.OpenFile(path, openLayoutFlags, 0)
	if err != nil {
		return nil, booking.Errorf(booking.EInvalid, "%s: %s", name, pathErrText(err))
	}
	defer f.Close()
	return readLayout(f, name)
}

// ReadLayoutIn reads and parses the hall layout name inside the folder
// dir and nowhere else: an absolute name, one with .., or a symbolic link
// that leads out of dir is refused (os.Root). For the manager screens,
// which a manager may use over SSH: they read the folder the operator
// chose, never any file the server can read.
func ReadLayoutIn(dir, name string) (*booking.Hall, error) {
	shown := booking.CleanLine(name, 80)
	if !filepath.IsLocal(name) {
		return nil, booking.Errorf(booking.EInvalid, "Only a file in the layouts folder is read: type its name, not a path (%s is not one in %s).", shown, booking.CleanLine(dir, 200))
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, booking.Errorf(booking.EInvalid, "There is no layouts folder %s: make it and put the layout file there.", booking.CleanLine(dir, 200))
	}
	if err != nil {
		return nil, booking.Errorf(booking.EInvalid, "The layouts folder %s cannot be read: %s", booking.CleanLine(dir, 200), pathErrText(err))
	}
	defer root.Close()
	f, err := root.OpenFile(name, openLayoutFlags, 0)
	if err != nil {
		why := pathErrText(err)
		if why == "path escapes from parent" { // os.Root's words for a link out
			why = "it leads out of the layouts folder"
		}
		return nil, booking.Errorf(booking.EInvalid, "%s: %s", shown, why)
	}
	defer f.Close()
	return readLayout(f, shown)
}

// readLayout checks the opened file f, named name in messages, and reads
// and parses it.
func readLayout(f *os.File, name string) (*booking.Hall, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, booking.Errorf(booking.EInvalid, "%s: %s", name, pathErrText(err))
	}
	if !info.Mode().IsRegular() {
		return nil, booking.Errorf(booking.EInvalid, "%s is %s, not a layout file.", name, fileKind(info.Mode()))
	}
	if info.Size() > booking.MaxLayoutBytes {
		return nil, booking.Errorf(booking.EInvalid, "%s is %s: a hall layout is at most %d KiB.", name, sizeText(info.Size()), booking.MaxLayoutBytes>>10)
	}
	src, err := io.ReadAll(io.LimitReader(f, booking.MaxLayoutBytes+1))
	if err != nil {
		return nil, booking.Errorf(booking.EInvalid, "%s: %s", name, pathErrText(err))
	}
	return booking.ParseLayoutFile(name, src)
}

// fileKind names what a file that is not a regular one is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", (n+1<<10-1)>>10)
}

// pathErrText is why a file could not be opened or read, without its
// name again (the caller says it once).
func pathErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return booking.CleanLine(err.Error(), 200)
}
