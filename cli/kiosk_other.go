//go:build !unix

package cli

// ignoreStopSignals does nothing where there are no such signals.
func ignoreStopSignals() func() { return func() {} }
