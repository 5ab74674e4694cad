export default function Home() {
  return <main>Sluice</main>;
}
