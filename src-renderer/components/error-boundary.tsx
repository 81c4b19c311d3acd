// One view failing to render (say, on a WAL shape nobody foresaw) shows its error as text; the rest of the
// window keeps working.
import { Component, type ReactNode } from 'react';

export class ErrorBoundary extends Component<{ children: ReactNode; resetKey: string }, { error: Error | null; resetKey: string }> {
  override state: { error: Error | null; resetKey: string } = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  static getDerivedStateFromProps(props: { resetKey: string }, state: { resetKey: string }) {
    return props.resetKey === state.resetKey ? null : { error: null, resetKey: props.resetKey };
  }

  override render() {
    if (this.state.error !== null) return <p className="error empty" role="alert">This view failed: {this.state.error.message}</p>;
    return this.props.children;
  }
}
