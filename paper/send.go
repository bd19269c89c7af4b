package paper

import (
	"context"
	"errors"
	"net"
	"os"
	"time"

	"boxoffice/booking"
	"boxoffice/escpos"
)

// Timeout is how long a print job may take from dialling to the
// printer's answer before it counts as failed.
const Timeout = 4 * time.Second

// Send writes job to p and waits for the printer to show it took it all,
// within timeout (Timeout when zero) or ctx, whichever ends first.
//
// A network printer is asked for its paper status (DLE EOT 4) after the
// job: the printer answers a real-time request as it reads it, so an
// answer means every byte before it arrived, and one that never comes —
// a printer that accepts the connection and stops reading, a jam, a
// cable pulled — is a failure within the timeout instead of a job lost
// in a socket buffer. An answer saying the roll is out is a failure too.
// A device is written with the same deadline.
//
// Every error is a *booking.Error with a message fit for a clerk.
func Send(ctx context.Context, p booking.Printer, job []byte, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = Timeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch {
	case p.Addr != "":
		return sendTCP(ctx, p, job)
	case p.Device != "":
		return sendDevice(ctx, p, job)
	}
	return booking.Errorf(booking.EInvalid, "No printer is set for this counter.")
}

func sendTCP(ctx context.Context, p booking.Printer, job []byte) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", p.Addr)
	if err != nil {
		return failed(p, ctx, err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	if err := conn.SetDeadline(deadline); err != nil {
		return failed(p, ctx, err)
	}
	// The deadline covers the context's cancellation too: closing the
	// connection ends a blocked write or read at once.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if _, err := conn.Write(append(job[:len(job):len(job)], escpos.StatusPaper...)); err != nil {
		return failed(p, ctx, err)
	}
	var status [1]byte
	if _, err := conn.Read(status[:]); err != nil {
		return failed(p, ctx, err)
	}
	if status[0]&0x93 == 0x12 && escpos.PaperOut(status[0]) {
		return booking.Errorf(booking.EInternal, "The printer at %s is out of paper.", p)
	}
	return nil
}

func sendDevice(ctx context.Context, p booking.Printer, job []byte) error {
	f, err := os.OpenFile(p.Device, os.O_WRONLY, 0)
	if err != nil {
		return failed(p, ctx, err)
	}
	deadline, _ := ctx.Deadline()
	_ = f.SetWriteDeadline(deadline) // not every device can; the wait below bounds it anyway
	done := make(chan error, 1)
	go func() {
		_, err := f.Write(job)
		done <- err
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return failed(p, ctx, err)
	}
	return nil
}

// failed is the clerk's reading of a transport error.
func failed(p booking.Printer, ctx context.Context, err error) error {
	var ne net.Error
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return booking.Errorf(booking.EInternal, "The printer at %s did not answer in time (is it on, with paper?).", p)
	case errors.Is(err, os.ErrNotExist):
		return booking.Errorf(booking.EInternal, "There is no printer device %s.", p)
	case errors.Is(err, os.ErrPermission):
		return booking.Errorf(booking.EInternal, "This program may not write to the printer device %s.", p)
	case ctx.Err() != nil:
		return booking.Errorf(booking.EInternal, "Printing to %s was cancelled.", p)
	}
	return booking.Errorf(booking.EInternal, "The printer at %s cannot be reached (%s).", p, shortErr(err))
}

// shortErr is the last part of a network error ("connection refused").
func shortErr(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		err = oe.Err
	}
	var se *os.SyscallError
	if errors.As(err, &se) && se.Err != nil {
		err = se.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Err != nil {
		err = pe.Err
	}
	return booking.CleanLine(err.Error(), 60)
}
