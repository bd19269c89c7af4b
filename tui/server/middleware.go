package server

import (
	"context"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	gossh "golang.org/x/crypto/ssh"

	"boxoffice/booking"
)

// identify checks, when a session starts, that the session's key is the
// key auth vetted and looks it up again: a key disabled or removed since
// the handshake is refused, and nothing from the offer phase is trusted.
func (s *Server) identify(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		remote := sess.RemoteAddr().String()
		key := sess.PublicKey()
		if key == nil {
			s.log.Warn("auth failure", "addr", remote, "reason", "no public key")
			wish.Fatalln(sess, "Access denied.")
			return
		}
		fp := gossh.FingerprintSHA256(key)
		var ext map[string]string
		if p := sess.Permissions(); p.Permissions != nil {
			ext = p.Extensions
		}
		if ext[extFingerprint] != fp {
			s.log.Warn("auth failure", "addr", remote, "fp", fp, "reason", "session key is not the key that was checked")
			wish.Fatalln(sess, "Access denied.")
			return
		}
		ctx, cancel := context.WithTimeout(sess.Context(), 5*time.Second)
		staff, term, err := s.cfg.Store.IdentifyKey(ctx, key.Marshal())
		cancel()
		if err != nil || identityOf(staff, term) != ext[extIdentity] {
			reason := "identity changed since auth"
			if err != nil {
				reason = booking.ErrorMessage(err)
			}
			s.log.Warn("auth failure", "addr", remote, "fp", fp, "reason", reason)
			wish.Fatalln(sess, "Access denied.")
			return
		}
		st := &session{
			id:      s.nextID.Add(1),
			addr:    addrOf(sess.RemoteAddr()),
			remote:  remote,
			fp:      fp,
			staff:   staff,
			term:    term,
			started: time.Now(),
		}
		s.mu.Lock()
		s.sessions[sess] = st
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.sessions, sess)
			s.mu.Unlock()
		}()
		next(sess)
	}
}

func (s *Server) lookup(sess ssh.Session) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[sess]
}

// logSession writes one line when a session starts and one when it ends.
func (s *Server) logSession(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		st := s.lookup(sess)
		pty, _, hasPTY := sess.Pty()
		attrs := append(st.logAttrs(), "session", st.id, "pty", hasPTY, "term", booking.CleanLine(pty.Term, 40),
			"width", pty.Window.Width, "height", pty.Window.Height)
		s.log.Info("connect", attrs...)
		defer func() {
			attrs := append(st.logAttrs(), "session", st.id, "owner", st.owner, "duration", time.Since(st.started).Round(time.Millisecond))
			s.log.Info("disconnect", attrs...)
		}()
		next(sess)
	}
}

// requirePTY ends a session without a terminal with a line saying what to
// do: the counter is a full-screen program. It stands in for wish's
// activeterm middleware, whose message does not say how.
func requirePTY(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if _, _, ok := sess.Pty(); ok {
			next(sess)
			return
		}
		wish.Errorln(sess, "boxoffice is a full-screen program and needs a terminal: connect with ssh -t.\r")
		_ = sess.Exit(1)
		_ = sess.Close()
	}
}
