import Link from "next/link";
import auth from "@/components/auth/auth.module.css";

export default function NotFound() {
  return (
    <main id="main" className={auth.wrap}>
      <div className={`card ${auth.card}`}>
        <div className="card-body stack">
          <h1>Not found</h1>
          <p className="muted">This page does not exist, or you do not have access to it.</p>
          <Link className="btn" href="/">
            Go home
          </Link>
        </div>
      </div>
    </main>
  );
}
