package server

// SessionsByRole counts the open counter sessions by the role of who is
// acting in each: the member of staff the key belongs to, or the person
// signed in at a terminal; "none" for a terminal nobody is signed
// in at. For the metrics.
func (s *Server) SessionsByRole() map[string]int {
	s.mu.Lock()
	open := make([]*session, 0, len(s.sessions))
	for _, st := range s.sessions {
		open = append(open, st)
	}
	s.mu.Unlock()
	out := map[string]int{}
	for _, st := range open {
		switch id, role := st.acting(); {
		case id != 0:
			out[role.String()]++
		case st.staff != nil:
			out[st.staff.Role.String()]++
		default:
			out["none"]++
		}
	}
	return out
}
