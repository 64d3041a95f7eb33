export function Greeting({ name }) {
  const text = `Hello, ${name}!`;
  return <h1 className="greeting">{text}</h1>;
}

export const Counter = ({ start }) => {
  const [count, setCount] = useState(start);
  return <button onClick={() => setCount(count + 1)}>{count}</button>;
};
