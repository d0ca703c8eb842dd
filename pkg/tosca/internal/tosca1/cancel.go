package tosca1

// Cancellation (the Session's Stopped, internal/core): every loop of the
// compiler whose work grows with the input asks Stopped once per item, so that a compile stops soon after its
// context ends (a signal, a deadline) at any size: the phases return what
// they have, the next ones do nothing, and Compile reports one
// tosca.canceled error, by the context's cause, instead of the problems
// found after the context ended (which the work cut short may have
// caused).
