package server_test

import "boxoffice/internal/sshclient"

// screen is the terminal emulator the counter's output is replayed onto
// (internal/sshclient, shared with e2e's soak test), with
// the lower-case name these tests call it by.
type screen struct{ *sshclient.Screen }

func newScreen(w, h int) *screen { return &screen{sshclient.NewScreen(w, h)} }

// changed returns a channel closed at the next write.
func (s *screen) changed() <-chan struct{} { return s.Changed() }
