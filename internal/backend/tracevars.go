package backend

// TraceInjection is the capability of a backend whose tool library needs variables of its own in the
// application to trace some domains, beyond those Tool injects it with.
type TraceInjection interface {
	// TraceVars are those variables ("NAME=value") for a run that traces domains (plan.json's
	// trace_domains).
	TraceVars(domains []string) []string
}

// TraceVars is what b's tool library needs in the application's environment to trace domains; nil
// for a backend without TraceInjection. The launcher sets each unless the user's environment
// already has a variable of that name.
func TraceVars(b Backend, domains []string) []string {
	if t, ok := b.(TraceInjection); ok && len(domains) > 0 {
		return t.TraceVars(domains)
	}
	return nil
}
