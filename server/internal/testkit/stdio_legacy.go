package testkit

func (w *Wire) HasParams() bool { _, ok := w.Members["params"]; return ok }
