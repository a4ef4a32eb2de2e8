package overhead.probe;

import java.util.ArrayList;
import java.util.List;

/** What an experiment gets: the point's spec, the harness, the runtime's activities, and notes. */
public final class Point {
    public final Job.Spec spec;
    public final Harness h;
    /** Set by {@link Main} once the runtime is known; experiments use it to make activities. */
    public Activities act;
    final List<String> notes = new ArrayList<>();

    /** The point spec, measured with h. */
    Point(Job.Spec spec, Harness h) {
        this.spec = spec;
        this.h = h;
    }

    /** Adds a free-text note to the point's result. */
    public void note(String text) {
        notes.add(text);
    }

    /** An error about this point: its name, then the text. */
    public ProbeException error(String text) {
        return new ProbeException(spec.name() + ": " + text);
    }
}
